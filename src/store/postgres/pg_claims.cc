// PgJobStore's leased claims (JobStore::Claim, RenewLeases,
// RequeueExpired). Each runs in one transaction on one pooled connection;
// the selects lock their rows FOR UPDATE SKIP LOCKED, so that concurrent
// claimers on any node take disjoint jobs without waiting on each other,
// and a sweep skips a row a Transition or another sweep holds. A claim is
// one statement (one round trip, its own transaction): the queue's ceiling
// (bench/queue_bench.cc) is round trips on a loaded server.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/store/postgres/pg_job_store.h"
#include "job_claim_rules.h"
#include "job_queries.h"
#include "job_row_codec.h"
#include "job_transition_rules.h"
#include "pg_connection.h"
#include "pg_job_writes.h"
#include "pg_pool.h"
#include "pg_rows.h"

namespace coderunner::store {

using store::JobRecord;
using store::JobStatus;

namespace {

// The whole rows of `sql` FOR UPDATE SKIP LOCKED (?1 bound to `arg`).
StatusOr<std::vector<JobRecord>> LockJobs(PgConnection& conn, const char* sql, int64_t arg,
                                          std::string_view what) {
  PgParams params;
  params.Bind(1, arg);
  CR_ASSIGN_OR_RETURN(PgResult rows, conn.Exec(std::string(sql) + kSkipLockedSuffix, params, what));
  return ReadPgJobs(rows);
}

}  // namespace

StatusOr<std::vector<JobRecord>> PgJobStore::Claim(const std::string& node, int max, int64_t now_ms,
                                                   int64_t lease_ms) {
  CR_RETURN_IF_ERROR(CheckClaimArgs(node, max, lease_ms));
  CR_ASSIGN_OR_RETURN(std::string entry, TransitionsToJson({{JobStatus::kRunning, now_ms}}));
  PgParams params;
  params.Bind(1, static_cast<int64_t>(max));
  params.Bind(2, now_ms);
  params.Bind(3, node);
  params.Bind(4, now_ms + lease_ms);
  params.Bind(5, std::string_view(entry).substr(1));
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(PgResult rows, conn->Exec(kPgClaimSql, params, "claim queued jobs"));
  CR_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, ReadPgJobs(rows));
  std::sort(jobs.begin(), jobs.end(), [](const JobRecord& a, const JobRecord& b) {
    return a.created_at_ms != b.created_at_ms ? a.created_at_ms < b.created_at_ms : a.id < b.id;
  });
  return jobs;
}

StatusOr<std::vector<std::string>> PgJobStore::RenewLeases(const std::string& node,
                                                           const std::vector<std::string>& ids,
                                                           int64_t now_ms, int64_t lease_ms) {
  CR_RETURN_IF_ERROR(CheckRenewArgs(node, lease_ms));
  std::vector<std::string> renewed;
  if (ids.empty()) return renewed;
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgTransaction txn(*conn);
  CR_RETURN_IF_ERROR(txn.Begin());
  for (const std::string& id : UniqueIds(ids)) {
    PgParams params;
    params.Bind(1, node);
    params.Bind(2, id);
    params.Bind(3, now_ms + lease_ms);
    CR_ASSIGN_OR_RETURN(PgResult updated,
                        conn->Exec(kRenewLeaseSql, params, "renew the lease of job " + id));
    if (updated.affected() > 0) renewed.push_back(id);
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  return renewed;
}

StatusOr<ExpiredLeases> PgJobStore::RequeueExpired(int64_t now_ms, int max_attempts,
                                                   const std::string& interrupted_result_json) {
  CR_RETURN_IF_ERROR(CheckRequeueArgs(max_attempts));
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgTransaction txn(*conn);
  CR_RETURN_IF_ERROR(txn.Begin());
  CR_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs,
                      LockJobs(*conn, kSelectExpiredSql, now_ms, "select expired leases"));
  ExpiredLeases out;
  if (jobs.empty()) return out;
  const std::string none;
  for (const JobRecord& job : jobs) {
    const JobStatus to = ExpiredLeaseTarget(job, max_attempts);
    const StoredJob stored = StoredJobOf(job);
    CR_ASSIGN_OR_RETURN(TransitionUpdate plan, PlanTransition(stored, to, now_ms));
    const std::string& result = to == JobStatus::kQueued ? none : interrupted_result_json;
    const std::optional<StoredRequest> redacted = RedactionFor(redactor_, stored, to);
    PlanFootprint(plan, stored, redacted, result, 0);
    CR_RETURN_IF_ERROR(WriteTransition(*conn, job.id, to, plan, now_ms, result, none));
    if (redacted) CR_RETURN_IF_ERROR(WriteRedaction(*conn, job.id, *redacted));
    RecordExpired(out, job.id, to);
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  return out;
}

}  // namespace coderunner::store
