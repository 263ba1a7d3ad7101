// SqliteJobStore's leased claims (JobStore::Claim, RenewLeases,
// RequeueExpired). Each runs in one BEGIN IMMEDIATE transaction, which
// takes the database's write lock up front: claimers on other connections
// to the same file (other stores, other processes) wait for it, so no two
// of them read the same queued row as claimable.
#include <sqlite3.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "job_claim_rules.h"
#include "job_queries.h"
#include "job_transition_rules.h"
#include "sqlite_job_writes.h"
#include "sqlite_rows.h"
#include "sqlite_statement.h"
#include "sqlite_transaction.h"

namespace coderunner::store {

using store::JobRecord;
using store::JobStatus;

namespace {

// The whole rows of `sql` (?1 bound to `arg`); failures as ReadJobs.
StatusOr<std::vector<JobRecord>> SelectJobs(SqliteStatementCache& statements, const char* sql,
                                            int64_t arg, std::string_view what) {
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements.Prepare(sql));
  select.Bind(1, arg);
  return ReadJobs(select, what);
}

}  // namespace

StatusOr<std::vector<JobRecord>> SqliteJobStore::Claim(const std::string& node, int max,
                                                       int64_t now_ms, int64_t lease_ms) {
  CR_RETURN_IF_ERROR(CheckClaimArgs(node, max, lease_ms));
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  CR_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs,
                      SelectJobs(*statements_, kSelectClaimableSql, static_cast<int64_t>(max),
                                 "select queued jobs"));
  if (jobs.empty()) return jobs;
  const std::string none;
  for (JobRecord& job : jobs) {
    CR_ASSIGN_OR_RETURN(TransitionUpdate plan, PlanClaim(job, node, now_ms, now_ms + lease_ms));
    CR_RETURN_IF_ERROR(
        WriteTransition(*statements_, job.id, JobStatus::kRunning, plan, now_ms, none, none));
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  return jobs;
}

StatusOr<std::vector<std::string>> SqliteJobStore::RenewLeases(const std::string& node,
                                                               const std::vector<std::string>& ids,
                                                               int64_t now_ms, int64_t lease_ms) {
  CR_RETURN_IF_ERROR(CheckRenewArgs(node, lease_ms));
  std::vector<std::string> renewed;
  if (ids.empty()) return renewed;
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  for (const std::string& id : UniqueIds(ids)) {
    CR_ASSIGN_OR_RETURN(ScopedStatement update, statements_->Prepare(kRenewLeaseSql));
    update.Bind(1, node);
    update.Bind(2, id);
    update.Bind(3, now_ms + lease_ms);
    CR_RETURN_IF_ERROR(update.Run("renew the lease of job " + id));
    if (sqlite3_changes(db_) > 0) renewed.push_back(id);
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  return renewed;
}

StatusOr<ExpiredLeases> SqliteJobStore::RequeueExpired(int64_t now_ms, int max_attempts,
                                                       const std::string& interrupted_result_json) {
  CR_RETURN_IF_ERROR(CheckRequeueArgs(max_attempts));
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  CR_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs,
                      SelectJobs(*statements_, kSelectExpiredSql, now_ms, "select expired leases"));
  ExpiredLeases out;
  if (jobs.empty()) return out;
  const std::string none;
  bool redacted_any = false;
  for (const JobRecord& job : jobs) {
    const JobStatus to = ExpiredLeaseTarget(job, max_attempts);
    const StoredJob stored = StoredJobOf(job);
    CR_ASSIGN_OR_RETURN(TransitionUpdate plan, PlanTransition(stored, to, now_ms));
    const std::string& result = to == JobStatus::kQueued ? none : interrupted_result_json;
    const std::optional<StoredRequest> redacted = RedactionFor(redactor_, stored, to);
    PlanFootprint(plan, stored, redacted, result, 0);
    CR_RETURN_IF_ERROR(WriteTransition(*statements_, job.id, to, plan, now_ms, result, none));
    if (redacted) {
      CR_RETURN_IF_ERROR(WriteRedaction(*statements_, job.id, *redacted));
      redacted_any = true;
    }
    RecordExpired(out, job.id, to);
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  // As in Transition: flush the redacted pages out of the WAL.
  if (redacted_any) {
    (void)sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  }
  return out;
}

}  // namespace coderunner::store
