#include "coderunner/store/postgres/pg_job_store.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "job_queries.h"
#include "job_row_codec.h"
#include "job_transition_rules.h"
#include "pg_connection.h"
#include "pg_job_writes.h"
#include "pg_pool.h"
#include "pg_rows.h"
#include "pg_schema.h"

namespace coderunner::store {

using store::JobRecord;
using store::JobStatus;

namespace {

constexpr int kMaxPoolConnections = 256;
constexpr int kMinConnectTimeoutMs = 100;
constexpr const char* kReasonInvalidOptions = "invalid_store_options";
constexpr const char* kPingSql = "SELECT 1";
constexpr const char* kSelectForUpdateSuffix = " FOR UPDATE";

// Reads job `id` for a move to `to` fenced by `owner`, locking its row
// until the transaction ends; NotFound if unknown.
StatusOr<StoredJob> PgReadForTransition(PgConnection& conn, const std::string& id, JobStatus to,
                                        const std::string& owner) {
  PgParams params;
  params.Bind(1, id);
  CR_ASSIGN_OR_RETURN(
      PgResult row, conn.Exec(std::string(kSelectForTransitionSql) + kSelectForUpdateSuffix, params,
                              "read job " + id));
  if (row.rows() == 0) return JobNotFound(id);
  return StoredJobForTransition(id,
                                {row.Text(0, 0), row.Text(0, 1), row.Text(0, 2), row.Text(0, 3),
                                 row.Text(0, 4), row.Text(0, 5)},
                                to, owner);
}

Status CheckOptions(const PgStoreOptions& options) {
  if (options.max_connections < 1 || options.max_connections > kMaxPoolConnections) {
    return InvalidArgumentError("max_connections must be 1..256", kReasonInvalidOptions);
  }
  if (options.connect_timeout_ms < kMinConnectTimeoutMs) {
    return InvalidArgumentError("connect_timeout_ms must be >= 100", kReasonInvalidOptions);
  }
  if (options.call_timeout_ms < kMinConnectTimeoutMs) {
    return InvalidArgumentError("call_timeout_ms must be >= 100", kReasonInvalidOptions);
  }
  return OkStatus();
}

}  // namespace

PgJobStore::PgJobStore(std::unique_ptr<PgPool> pool, RequestRedactor redactor)
    : pool_(std::move(pool)), redactor_(std::move(redactor)) {}

PgJobStore::~PgJobStore() = default;

StatusOr<std::unique_ptr<PgJobStore>> PgJobStore::Open(const PgStoreOptions& options,
                                                       RequestRedactor redactor) {
  CR_RETURN_IF_ERROR(CheckOptions(options));
  auto pool = std::make_unique<PgPool>(
      PgPoolOptions{options.conninfo, options.password, options.max_connections,
                    options.connect_timeout_ms, options.call_timeout_ms});
  {
    CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool->Acquire());
    CR_RETURN_IF_ERROR(MigratePgSchema(*conn));
  }
  return std::unique_ptr<PgJobStore>(new PgJobStore(std::move(pool), std::move(redactor)));
}

StoreParts PartsOf(std::unique_ptr<PgJobStore> store) {
  StoreParts parts;
  parts.nodes = store.get();
  parts.outbox = store.get();
  parts.bounded = store.get();
  parts.rate_buckets = store.get();
  parts.sandbox_owners = store.get();
  parts.jobs = std::move(store);
  return parts;
}

Status PgJobStore::Insert(const std::vector<JobRecord>& records) {
  if (records.empty()) return OkStatus();
  CR_ASSIGN_OR_RETURN(std::vector<std::string> transitions, InsertTransitions(records));
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgTransaction txn(*conn);
  CR_RETURN_IF_ERROR(txn.Begin());
  for (size_t i = 0; i < records.size(); ++i) {
    const JobRecord& job = records[i];
    StoredRequest request = RequestToInsert(job, redactor_);
    PgParams params;
    BindJobTo(params, job, request.request_json, request.callback_url, transitions[i]);
    Status inserted = conn->Exec(kInsertJobSql, params, "insert job " + job.id).status();
    if (inserted.code() == StatusCode::kAlreadyExists) {
      return AlreadyExistsError("job " + job.id + " already exists", kReasonJobExists);
    }
    CR_RETURN_IF_ERROR(inserted);
    if (!OwedWebhookUrl(job).empty()) {
      CR_RETURN_IF_ERROR(WriteDelivery(*conn, job.id, job.callback_url, job.finished_at_ms));
    }
  }
  return txn.Commit();
}

Status PgJobStore::Transition(const std::string& id, JobStatus to, int64_t at_ms,
                              const std::string& result_json, const std::string& image_digest,
                              const std::string& owner, int64_t artifact_bytes) {
  CR_RETURN_IF_ERROR(CheckTransitionArgs(to, result_json, artifact_bytes));
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgTransaction txn(*conn);
  CR_RETURN_IF_ERROR(txn.Begin());
  CR_ASSIGN_OR_RETURN(StoredJob stored, PgReadForTransition(*conn, id, to, owner));
  CR_ASSIGN_OR_RETURN(TransitionUpdate plan, PlanTransition(stored, to, at_ms));
  const std::optional<StoredRequest> redacted = RedactionFor(redactor_, stored, to);
  PlanFootprint(plan, stored, redacted, result_json, artifact_bytes);
  CR_RETURN_IF_ERROR(WriteTransition(*conn, id, to, plan, at_ms, result_json, image_digest));
  if (redacted) CR_RETURN_IF_ERROR(WriteRedaction(*conn, id, *redacted));
  return txn.Commit();
}

Status PgJobStore::UpdateProgress(const std::string& id, const std::string& progress_json) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, id);
  params.Bind(2, progress_json);
  CR_ASSIGN_OR_RETURN(PgResult updated,
                      conn->Exec(kUpdateProgressSql, params, "update progress of job " + id));
  if (updated.affected() > 0) return OkStatus();
  // Unknown, or terminal: which one decides what the caller does.
  PgParams select;
  select.Bind(1, id);
  CR_ASSIGN_OR_RETURN(PgResult row, conn->Exec(kSelectForTransitionSql, select, "read job " + id));
  if (row.rows() == 0) return JobNotFound(id);
  return JobAlreadyTerminal(id, row.Text(0, 0));
}

StatusOr<JobRecord> PgJobStore::Get(const std::string& id, const std::string& tenant) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, id);
  params.Bind(2, tenant);
  CR_ASSIGN_OR_RETURN(PgResult row, conn->Exec(kGetJobSql, params, "get job " + id));
  if (row.rows() == 0) return JobNotFound(id);
  return ReadJobFrom(PgRow{row, 0});
}

StatusOr<ListPage> PgJobStore::List(const ListFilter& filter) {
  CR_ASSIGN_OR_RETURN(ListPlan plan, PlanList(filter));
  PgParams params;
  params.Bind(1, filter.tenant);
  // Positional: the texts that leave ?2..?4 unused still take them.
  params.Bind(2, filter.status ? store::JobStatusName(*filter.status) : "");
  params.Bind(3, plan.cursor ? plan.cursor->created_at_ms : 0);
  params.Bind(4, plan.cursor ? plan.cursor->id : "");
  params.Bind(5, plan.fetch);
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(PgResult rows, conn->Exec(plan.sql, params, "list jobs"));
  CR_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, ReadPgJobs(rows));
  return FinishListPage(plan, std::move(jobs));
}

StatusOr<std::vector<JobRecord>> PgJobStore::NonTerminal() {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(PgResult rows, conn->Exec(kNonTerminalSql, {}, "list non-terminal jobs"));
  return ReadPgJobs(rows);
}

StatusOr<std::vector<std::string>> PgJobStore::PurgeFinishedBefore(int64_t before_ms) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, before_ms);
  // One statement: DELETE ... RETURNING is atomic on its own.
  CR_ASSIGN_OR_RETURN(PgResult rows, conn->Exec(std::string(kDeletePurgeSql) + " RETURNING id",
                                                params, "delete finished jobs"));
  std::vector<std::string> ids;
  ids.reserve(static_cast<size_t>(rows.rows()));
  for (int row = 0; row < rows.rows(); ++row) ids.push_back(rows.Text(row, 0));
  return ids;
}

StatusOr<std::optional<std::string>> PgJobStore::CacheGet(const std::string& key, int64_t now_ms) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, key);
  params.Bind(2, now_ms);
  CR_ASSIGN_OR_RETURN(PgResult row, conn->Exec(kCacheGetSql, params, "cache get"));
  if (row.rows() == 0) return std::optional<std::string>();
  return std::optional<std::string>(row.Text(0, 0));
}

Status PgJobStore::CachePut(const std::string& key, const std::string& result_json,
                            int64_t expires_at_ms) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, key);
  params.Bind(2, result_json);
  params.Bind(3, expires_at_ms);
  return conn->Exec(kCachePutSql, params, "cache put").status();
}

StatusOr<int> PgJobStore::CachePurgeExpired(int64_t now_ms) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, now_ms);
  CR_ASSIGN_OR_RETURN(PgResult deleted, conn->Exec(kCachePurgeSql, params, "cache purge"));
  return static_cast<int>(deleted.affected());
}

Status PgJobStore::Ping() {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  return conn->Exec(kPingSql, {}, "ping").status();
}

}  // namespace coderunner::store
