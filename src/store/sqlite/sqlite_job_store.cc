#include "coderunner/store/sqlite/sqlite_job_store.h"

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "job_queries.h"
#include "job_transition_rules.h"
#include "sqlite_database.h"
#include "sqlite_error.h"
#include "sqlite_job_writes.h"
#include "sqlite_result_cache.h"
#include "sqlite_rows.h"
#include "sqlite_statement.h"
#include "sqlite_transaction.h"

namespace coderunner::store {

using store::JobRecord;
using store::JobStatus;

namespace {

// Reads job `id` for a move to `to` fenced by `owner`
// (StoredJobForTransition); NotFound if unknown.
StatusOr<StoredJob> SqliteReadForTransition(SqliteStatementCache& statements, const std::string& id,
                                            JobStatus to, const std::string& owner) {
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements.Prepare(kSelectForTransitionSql));
  select.Bind(1, id);
  CR_ASSIGN_OR_RETURN(bool found, select.Step("read job " + id));
  if (!found) return JobNotFound(id);
  sqlite3_stmt* row = select.get();
  return StoredJobForTransition(id,
                                {ColumnString(row, 0), ColumnString(row, 1), ColumnString(row, 2),
                                 ColumnString(row, 3), ColumnString(row, 4), ColumnString(row, 5)},
                                to, owner);
}

}  // namespace

SqliteJobStore::SqliteJobStore(sqlite3* db, RequestRedactor redactor)
    : db_(db),
      statements_(std::make_unique<SqliteStatementCache>(db)),
      cache_(std::make_unique<SqliteResultCache>(db, statements_.get())),
      redactor_(std::move(redactor)) {}

SqliteJobStore::~SqliteJobStore() {
  cache_.reset();
  statements_.reset();  // Finalize before closing.
  sqlite3_close_v2(db_);
}

StatusOr<std::unique_ptr<SqliteJobStore>> SqliteJobStore::Open(const std::string& path,
                                                               RequestRedactor redactor) {
  CR_ASSIGN_OR_RETURN(SqliteHandle db, OpenJobDatabase(path));
  return std::unique_ptr<SqliteJobStore>(new SqliteJobStore(db.release(), std::move(redactor)));
}

StoreParts PartsOf(std::unique_ptr<SqliteJobStore> store) {
  StoreParts parts;
  parts.nodes = store.get();
  parts.outbox = store.get();
  parts.jobs = std::move(store);
  return parts;
}

Status SqliteJobStore::Insert(const std::vector<JobRecord>& records) {
  if (records.empty()) return OkStatus();
  CR_ASSIGN_OR_RETURN(std::vector<std::string> transitions, InsertTransitions(records));

  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement insert, statements_->Prepare(kInsertJobSql));
    for (size_t i = 0; i < records.size(); ++i) {
      const JobRecord& job = records[i];
      insert.Reset();
      StoredRequest request = RequestToInsert(job, redactor_);
      BindJob(insert, job, request.request_json, request.callback_url, transitions[i]);
      Status inserted = insert.Run("insert job " + job.id);
      if (!inserted.ok()) {
        if ((insert.last_rc() & 0xff) == SQLITE_CONSTRAINT) {
          return AlreadyExistsError("job " + job.id + " already exists", kReasonJobExists);
        }
        return inserted;
      }
      if (!OwedWebhookUrl(job).empty()) {
        CR_RETURN_IF_ERROR(
            WriteDelivery(*statements_, job.id, job.callback_url, job.finished_at_ms));
      }
    }
  }
  return txn.Commit();
}

Status SqliteJobStore::Transition(const std::string& id, JobStatus to, int64_t at_ms,
                                  const std::string& result_json, const std::string& image_digest,
                                  const std::string& owner, int64_t artifact_bytes) {
  CR_RETURN_IF_ERROR(CheckTransitionArgs(to, result_json, artifact_bytes));

  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  CR_ASSIGN_OR_RETURN(StoredJob stored, SqliteReadForTransition(*statements_, id, to, owner));
  CR_ASSIGN_OR_RETURN(TransitionUpdate plan, PlanTransition(stored, to, at_ms));
  std::optional<StoredRequest> redacted = RedactionFor(redactor_, stored, to);
  PlanFootprint(plan, stored, redacted, result_json, artifact_bytes);
  CR_RETURN_IF_ERROR(WriteTransition(*statements_, id, to, plan, at_ms, result_json, image_digest));
  if (redacted) CR_RETURN_IF_ERROR(WriteRedaction(*statements_, id, *redacted));
  CR_RETURN_IF_ERROR(txn.Commit());
  // The WAL still holds the page images from before the redaction: copy
  // the new ones into the database (secure_delete zeroes what they
  // replace) and empty the WAL. Only after a redaction, which is rare.
  // A checkpoint that cannot finish now (a reader elsewhere) leaves it to
  // the next one: the transition itself has committed.
  if (redacted) {
    (void)sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  }
  return OkStatus();
}

Status SqliteJobStore::UpdateProgress(const std::string& id, const std::string& progress_json) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement update, statements_->Prepare(kUpdateProgressSql));
  update.Bind(1, id);
  update.Bind(2, progress_json);
  CR_RETURN_IF_ERROR(update.Run("update progress of job " + id));
  if (sqlite3_changes(db_) == 0) {
    // Unknown, or terminal: which one decides what the caller does.
    CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kSelectForTransitionSql));
    select.Bind(1, id);
    CR_ASSIGN_OR_RETURN(bool found, select.Step("read job " + id));
    if (!found) return JobNotFound(id);
    return JobAlreadyTerminal(id, ColumnString(select.get(), 0));
  }
  return OkStatus();
}

StatusOr<JobRecord> SqliteJobStore::Get(const std::string& id, const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kGetJobSql));
  select.Bind(1, id);
  select.Bind(2, tenant);
  CR_ASSIGN_OR_RETURN(bool found, select.Step("get job " + id));
  if (!found) return JobNotFound(id);
  return ReadJob(select.get());
}

StatusOr<ListPage> SqliteJobStore::List(const ListFilter& filter) {
  CR_ASSIGN_OR_RETURN(ListPlan plan, PlanList(filter));
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(plan.sql));
  select.Bind(1, filter.tenant);
  if (filter.status) select.Bind(2, store::JobStatusName(*filter.status));
  if (plan.cursor) {
    select.Bind(3, plan.cursor->created_at_ms);
    select.Bind(4, plan.cursor->id);
  }
  select.Bind(5, plan.fetch);
  CR_ASSIGN_OR_RETURN(std::vector<JobRecord> rows, ReadJobs(select, "list jobs"));
  return FinishListPage(plan, std::move(rows));
}

StatusOr<std::vector<JobRecord>> SqliteJobStore::NonTerminal() {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kNonTerminalSql));
  return ReadJobs(select, "list non-terminal jobs");
}

StatusOr<std::vector<std::string>> SqliteJobStore::PurgeFinishedBefore(int64_t before_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  std::vector<std::string> ids;
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kSelectPurgeSql));
    select.Bind(1, before_ms);
    while (true) {
      CR_ASSIGN_OR_RETURN(bool row, select.Step("select finished jobs"));
      if (!row) break;
      ids.push_back(ColumnString(select.get(), 0));
    }
  }
  if (ids.empty()) return ids;
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement del, statements_->Prepare(kDeletePurgeSql));
    del.Bind(1, before_ms);
    CR_RETURN_IF_ERROR(del.Run("delete finished jobs"));
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  return ids;
}

StatusOr<std::optional<std::string>> SqliteJobStore::CacheGet(const std::string& key,
                                                              int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_->Get(key, now_ms);
}

Status SqliteJobStore::CachePut(const std::string& key, const std::string& result_json,
                                int64_t expires_at_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_->Put(key, result_json, expires_at_ms);
}

StatusOr<int> SqliteJobStore::CachePurgeExpired(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_->PurgeExpired(now_ms);
}

}  // namespace coderunner::store
