#include "coderunner/store/sqlite_job_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "job_queries.h"
#include "job_row_codec.h"
#include "list_cursor.h"
#include "sqlite_database.h"
#include "sqlite_error.h"
#include "sqlite_result_cache.h"
#include "sqlite_statement.h"
#include "sqlite_transaction.h"

namespace coderunner::store {

using store::JobRecord;
using store::JobStatus;

namespace {

constexpr int kMinListLimit = 1;
constexpr int kMaxListLimit = 500;
constexpr const char* kReasonInvalidJob = "invalid_job";
constexpr const char* kReasonInvalidTransition = "invalid_transition";

// What Transition reads of a job before it moves it.
struct StoredJob {
  std::vector<store::Transition> transitions;
  std::string request_json;  // As stored.
  std::string callback_url;  // As stored.
};

// Reads job `id` for a move to `to`: NotFound if unknown,
// FailedPrecondition ("job_terminal") if already terminal.
StatusOr<StoredJob> ReadForTransition(SqliteStatementCache& statements, const std::string& id,
                                      JobStatus to) {
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements.Prepare(kSelectForTransitionSql));
  select.Bind(1, id);
  CR_ASSIGN_OR_RETURN(bool found, select.Step("read job " + id));
  if (!found) return NotFoundError("job " + id + " not found", kReasonJobNotFound);
  std::string from_name = ColumnString(select.get(), 0);
  std::optional<JobStatus> from = store::ParseJobStatus(from_name);
  if (!from) return CorruptError("job " + id + " has unknown status '" + from_name + "'");
  if (store::IsTerminal(*from)) {
    return FailedPreconditionError("job " + id + " is already " + from_name +
                                       "; cannot move it to " +
                                       std::string(store::JobStatusName(to)),
                                   kReasonJobTerminal);
  }
  StoredJob stored;
  CR_ASSIGN_OR_RETURN(stored.transitions, ParseTransitions(ColumnString(select.get(), 1), id));
  stored.request_json = ColumnString(select.get(), 2);
  stored.callback_url = ColumnString(select.get(), 3);
  return stored;
}

// Applies `redactor` to the stored request and callback of job `id`;
// returns whether that changed (and so rewrote) them.
StatusOr<bool> RedactStored(SqliteStatementCache& statements, const RequestRedactor& redactor,
                            const std::string& id, const StoredJob& stored) {
  std::string redacted = stored.request_json, redacted_callback = stored.callback_url;
  redactor(redacted, redacted_callback);
  if (redacted == stored.request_json && redacted_callback == stored.callback_url) return false;
  CR_ASSIGN_OR_RETURN(ScopedStatement update, statements.Prepare(kRedactRequestSql));
  update.Bind(1, id);
  update.Bind(2, redacted);
  update.Bind(3, redacted_callback);
  CR_RETURN_IF_ERROR(update.Run("redact request of job " + id));
  return true;
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

Status SqliteJobStore::Insert(const std::vector<JobRecord>& records) {
  if (records.empty()) return OkStatus();
  std::vector<std::string> transitions;
  transitions.reserve(records.size());
  for (const JobRecord& job : records) {
    if (job.id.empty()) return InvalidArgumentError("job without id", kReasonInvalidJob);
    CR_ASSIGN_OR_RETURN(std::string json, TransitionsToJson(job.transitions));
    transitions.push_back(std::move(json));
  }

  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement insert, statements_->Prepare(kInsertJobSql));
    for (size_t i = 0; i < records.size(); ++i) {
      const JobRecord& job = records[i];
      insert.Reset();
      std::string request = job.request_json;
      std::string callback = job.callback_url;
      if (redactor_ && store::IsTerminal(job.status)) redactor_(request, callback);
      BindJob(insert, job, request, callback, transitions[i]);
      Status inserted = insert.Run("insert job " + job.id);
      if (!inserted.ok()) {
        if ((insert.last_rc() & 0xff) == SQLITE_CONSTRAINT) {
          return AlreadyExistsError("job " + job.id + " already exists", kReasonJobExists);
        }
        return inserted;
      }
    }
  }
  return txn.Commit();
}

Status SqliteJobStore::Transition(const std::string& id, JobStatus to, int64_t at_ms,
                                  const std::string& result_json, const std::string& image_digest) {
  const bool terminal = store::IsTerminal(to);
  if (!terminal && !result_json.empty()) {
    return InvalidArgumentError("a result is only stored with a terminal status, not " +
                                    std::string(store::JobStatusName(to)),
                                kReasonInvalidTransition);
  }

  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  CR_ASSIGN_OR_RETURN(StoredJob stored, ReadForTransition(*statements_, id, to));
  stored.transitions.push_back({to, at_ms});
  CR_ASSIGN_OR_RETURN(std::string transitions_json, TransitionsToJson(stored.transitions));
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement update, statements_->Prepare(kUpdateForTransitionSql));
    update.Bind(1, id);
    update.Bind(2, store::JobStatusName(to));
    update.Bind(3, transitions_json);
    update.Bind(4, static_cast<int64_t>(to == JobStatus::kQueued ? 1 : 0));
    update.BindBool(5, to == JobStatus::kRunning);
    update.Bind(6, at_ms);
    update.BindBool(7, terminal);
    update.BindBorrowed(8, result_json);
    update.Bind(9, image_digest);
    CR_RETURN_IF_ERROR(update.Run("update job " + id));
  }
  bool redacted_now = false;
  if (terminal && redactor_) {
    CR_ASSIGN_OR_RETURN(redacted_now, RedactStored(*statements_, redactor_, id, stored));
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  // The WAL still holds the page images from before the redaction: copy
  // the new ones into the database (secure_delete zeroes what they
  // replace) and empty the WAL. Only after a redaction, which is rare.
  // A checkpoint that cannot finish now (a reader elsewhere) leaves it to
  // the next one: the transition itself has committed.
  if (redacted_now) {
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
    if (!found) return NotFoundError("job " + id + " not found", kReasonJobNotFound);
    return FailedPreconditionError("job " + id + " is already " + ColumnString(select.get(), 0),
                                   kReasonJobTerminal);
  }
  return OkStatus();
}

StatusOr<JobRecord> SqliteJobStore::Get(const std::string& id, const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kGetJobSql));
  select.Bind(1, id);
  select.Bind(2, tenant);
  CR_ASSIGN_OR_RETURN(bool found, select.Step("get job " + id));
  if (!found) return NotFoundError("job " + id + " not found", kReasonJobNotFound);
  return ReadJob(select.get());
}

StatusOr<ListPage> SqliteJobStore::List(const ListFilter& filter) {
  std::optional<ListCursor> cursor;
  if (!filter.cursor.empty()) {
    cursor = ParseListCursor(filter.cursor);
    if (!cursor) return InvalidArgumentError("malformed list cursor", kReasonInvalidCursor);
  }
  const int limit = std::clamp(filter.limit, kMinListLimit, kMaxListLimit);
  const char* sql = filter.status ? (cursor ? kListByStatusAfterSql : kListByStatusSql)
                                  : (cursor ? kListAfterSql : kListSql);

  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(sql));
  select.Bind(1, filter.tenant);
  if (filter.status) select.Bind(2, store::JobStatusName(*filter.status));
  if (cursor) {
    select.Bind(3, cursor->created_at_ms);
    select.Bind(4, cursor->id);
  }
  select.Bind(5, static_cast<int64_t>(limit) + 1);  // One more tells whether a next page exists.
  ListPage page;
  CR_ASSIGN_OR_RETURN(page.jobs, ReadJobs(select, "list jobs"));
  if (page.jobs.size() > static_cast<size_t>(limit)) {
    page.jobs.resize(static_cast<size_t>(limit));
    page.next_cursor = FormatListCursor(page.jobs.back());
  }
  return page;
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
