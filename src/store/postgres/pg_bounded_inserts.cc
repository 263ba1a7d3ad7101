// PgJobStore's BoundedQueue::InsertWithin: count the queued jobs and
// insert in one transaction that no other InsertWithin can interleave with
// (an advisory lock).
#include <string>
#include <vector>

#include "coderunner/store/postgres/pg_job_store.h"
#include "coderunner/store/queue_bounds.h"
#include "job_queries.h"
#include "job_row_codec.h"
#include "job_transition_rules.h"
#include "pg_connection.h"
#include "pg_pool.h"

namespace coderunner::store {
namespace {

// The tenant's (?1) queued jobs and all queued jobs (jobs_by_status).
constexpr const char* kCountQueuedSql =
    "SELECT COALESCE(SUM(CASE WHEN tenant = ?1 THEN 1 ELSE 0 END), 0), COUNT(*) FROM jobs "
    "WHERE status = 'queued'";

// The lock of the whole queue ("cr" "queue" as bytes) when
// there is a total bound (it serializes every bounded insert, the tenant's
// count included), else the tenant's (that class and the tenant's hash);
// held until the transaction ends. JobService always passes a total bound
// (jobs.max_queued >= 1), so every node takes the same lock.
constexpr int64_t kPgQueueLockKey = 0x637271756575;
constexpr int kPgTenantQueueLockClass = 0x63727174;  // "crqt"
constexpr const char* kPgLockQueueSql = "SELECT pg_advisory_xact_lock(?1)";
constexpr const char* kPgLockTenantSql =
    "SELECT pg_advisory_xact_lock(CAST(?1 AS INTEGER), hashtext(?2))";

Status DuplicateJob(const std::string& id) {
  return AlreadyExistsError("job " + id + " already exists", kReasonJobExists);
}

// Takes the PostgreSQL lock `bounds` needs: one statement.
Status LockPgBounds(PgConnection& conn, const std::string& tenant, const QueueBounds& bounds) {
  PgParams key;
  if (bounds.total_max > 0) {
    key.Bind(1, kPgQueueLockKey);
    return conn.Exec(kPgLockQueueSql, key, "lock the queue").status();
  }
  if (bounds.tenant_max <= 0) return OkStatus();
  key.Bind(1, static_cast<int64_t>(kPgTenantQueueLockClass));
  key.Bind(2, tenant);
  return conn.Exec(kPgLockTenantSql, key, "lock the queue of tenant " + tenant).status();
}

}  // namespace

Status PgJobStore::InsertWithin(const JobRecord& record, const QueueBounds& bounds) {
  CR_ASSIGN_OR_RETURN(std::vector<std::string> transitions, InsertTransitions({record}));
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgTransaction txn(*conn);
  CR_RETURN_IF_ERROR(txn.Begin());
  CR_RETURN_IF_ERROR(LockPgBounds(*conn, record.tenant, bounds));
  // READ COMMITTED: this statement's snapshot is taken after the locks, so
  // it sees every insert committed by the previous holder.
  PgParams tenant;
  tenant.Bind(1, record.tenant);
  CR_ASSIGN_OR_RETURN(PgResult counts, conn->Exec(kCountQueuedSql, tenant, "count queued jobs"));
  CR_RETURN_IF_ERROR(CheckQueueBounds(counts.Int(0, 0), counts.Int(0, 1), bounds));
  StoredRequest request = RequestToInsert(record, redactor_);
  PgParams params;
  BindJobTo(params, record, request.request_json, request.callback_url, transitions[0]);
  Status inserted = conn->Exec(kInsertJobSql, params, "insert job " + record.id).status();
  if (inserted.code() == StatusCode::kAlreadyExists) return DuplicateJob(record.id);
  CR_RETURN_IF_ERROR(inserted);
  return txn.Commit();
}

}  // namespace coderunner::store
