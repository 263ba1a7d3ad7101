#include "coderunner/store/sqlite_job_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sqlite_schema.h"

namespace coderunner::store {

using store::JobRecord;
using store::JobStatus;

namespace {

constexpr int kBusyTimeoutMs = 5000;
constexpr int kMinListLimit = 1;
constexpr int kMaxListLimit = 500;

// Column order read by ReadJob.
#define CR_JOB_COLUMNS                                                                         \
  "id, tenant, status, language, request_json, code_sha256, inputs_sha256, cache_key, image, " \
  "image_digest, limits_json, callback_url, replay_of, cached, attempt, created_at_ms, "       \
  "started_at_ms, finished_at_ms, transitions, result_json, kind, progress_json"
// The same, with request_json and result_json left empty (list pages).
#define CR_LIST_COLUMNS                                                                  \
  "id, tenant, status, language, '', code_sha256, inputs_sha256, cache_key, image, "     \
  "image_digest, limits_json, callback_url, replay_of, cached, attempt, created_at_ms, " \
  "started_at_ms, finished_at_ms, transitions, '', kind, ''"

constexpr const char* kInsertJobSql =
    "INSERT INTO jobs (" CR_JOB_COLUMNS
    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
    "?19, ?20, ?21, ?22)";
constexpr const char* kGetJobSql =
    "SELECT " CR_JOB_COLUMNS " FROM jobs WHERE id = ?1 AND (?2 = '' OR tenant = ?2)";
// Progress of a job that is not terminal yet (see UpdateProgress).
constexpr const char* kUpdateProgressSql =
    "UPDATE jobs SET progress_json = ?2 WHERE id = ?1 AND status IN ('queued', 'running')";
constexpr const char* kSelectForTransitionSql =
    "SELECT status, transitions, request_json, callback_url FROM jobs WHERE id = ?1";
constexpr const char* kRedactRequestSql =
    "UPDATE jobs SET request_json = ?2, callback_url = ?3 WHERE id = ?1";
constexpr const char* kUpdateForTransitionSql =
    "UPDATE jobs SET status = ?2, transitions = ?3, attempt = attempt + ?4, "
    "started_at_ms = CASE WHEN ?5 THEN ?6 ELSE started_at_ms END, "
    "finished_at_ms = CASE WHEN ?7 THEN ?6 ELSE finished_at_ms END, "
    "result_json = CASE WHEN ?8 <> '' THEN ?8 ELSE result_json END, "
    "image_digest = CASE WHEN ?9 <> '' THEN ?9 ELSE image_digest END "
    "WHERE id = ?1";
// List: ?1 tenant, ?2 status, ?3/?4 cursor (created_at_ms, id), ?5 limit.
// One fixed text per combination of filters, so that each uses the index.
#define CR_LIST_PREFIX "SELECT " CR_LIST_COLUMNS " FROM jobs WHERE tenant = ?1"
#define CR_LIST_SUFFIX " ORDER BY created_at_ms DESC, id DESC LIMIT ?5"
constexpr const char* kListSql = CR_LIST_PREFIX CR_LIST_SUFFIX;
constexpr const char* kListByStatusSql = CR_LIST_PREFIX " AND status = ?2" CR_LIST_SUFFIX;
constexpr const char* kListAfterSql =
    CR_LIST_PREFIX " AND (created_at_ms, id) < (?3, ?4)" CR_LIST_SUFFIX;
constexpr const char* kListByStatusAfterSql =
    CR_LIST_PREFIX " AND status = ?2 AND (created_at_ms, id) < (?3, ?4)" CR_LIST_SUFFIX;
constexpr const char* kNonTerminalSql = "SELECT " CR_JOB_COLUMNS
                                        " FROM jobs WHERE status IN ('queued', 'running') "
                                        "ORDER BY created_at_ms ASC, id ASC";
#define CR_PURGE_WHERE " WHERE finished_at_ms < ?1 AND status NOT IN ('queued', 'running')"
constexpr const char* kSelectPurgeSql = "SELECT id FROM jobs" CR_PURGE_WHERE;
constexpr const char* kDeletePurgeSql = "DELETE FROM jobs" CR_PURGE_WHERE;
constexpr const char* kCacheGetSql =
    "SELECT result_json FROM cache WHERE key = ?1 AND expires_at_ms > ?2";
constexpr const char* kCachePutSql =
    "INSERT INTO cache (key, result_json, expires_at_ms) VALUES (?1, ?2, ?3) "
    "ON CONFLICT (key) DO UPDATE SET result_json = excluded.result_json, "
    "expires_at_ms = excluded.expires_at_ms";
constexpr const char* kCachePurgeSql = "DELETE FROM cache WHERE expires_at_ms <= ?1";

#undef CR_JOB_COLUMNS
#undef CR_LIST_COLUMNS
#undef CR_LIST_PREFIX
#undef CR_LIST_SUFFIX
#undef CR_PURGE_WHERE

// Converts SQLite result code `rc` (from a call on `db`) into a Status.
Status SqliteError(sqlite3* db, int rc, std::string_view what) {
  const char* detail = (db != nullptr && sqlite3_errcode(db) == (rc & 0xff)) ? sqlite3_errmsg(db)
                                                                             : sqlite3_errstr(rc);
  std::string message = std::string(what) + ": " + detail + " (sqlite " + std::to_string(rc) + ")";
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return ResourceExhaustedError(std::move(message), "disk_full");
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_NOLFS:
      return UnavailableError(std::move(message), "store_unavailable");
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return InternalError(std::move(message), "store_corrupt");
    default:
      return InternalError(std::move(message), "store_error");
  }
}

Status CorruptError(std::string message) {
  return InternalError(std::move(message), "store_corrupt");
}

// Runs static SQL (no values) on `db`.
Status Exec(sqlite3* db, const char* sql, std::string_view what) {
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, what);
  return OkStatus();
}

// A statement borrowed from the cache: bindings are collected (the first
// failure is reported by Step) and the statement is reset when this goes
// out of scope, so that it holds no read lock and can be reused.
class ScopedStatement {
 public:
  ScopedStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ScopedStatement(ScopedStatement&& other) noexcept
      : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), bind_rc_(other.bind_rc_) {}
  ScopedStatement(const ScopedStatement&) = delete;
  ScopedStatement& operator=(const ScopedStatement&) = delete;
  ScopedStatement& operator=(ScopedStatement&&) = delete;
  ~ScopedStatement() { Reset(); }

  void Bind(int index, std::string_view value) {
    Check(sqlite3_bind_text64(stmt_, index, value.empty() ? "" : value.data(), value.size(),
                              SQLITE_TRANSIENT, SQLITE_UTF8));
  }
  // Binds `value` without a copy (a result can be several MiB): it must
  // outlive this statement's Step (the bindings are cleared on Reset).
  void BindBorrowed(int index, std::string_view value) {
    Check(sqlite3_bind_text64(stmt_, index, value.empty() ? "" : value.data(), value.size(),
                              SQLITE_STATIC, SQLITE_UTF8));
  }
  void Bind(int index, int64_t value) { Check(sqlite3_bind_int64(stmt_, index, value)); }
  void BindBool(int index, bool value) { Check(sqlite3_bind_int(stmt_, index, value ? 1 : 0)); }

  // True for a row, false when done.
  StatusOr<bool> Step(std::string_view what) {
    last_rc_ = bind_rc_ != SQLITE_OK ? bind_rc_ : sqlite3_step(stmt_);
    if (last_rc_ == SQLITE_ROW) return true;
    if (last_rc_ == SQLITE_DONE) return false;
    return SqliteError(db_, last_rc_, what);
  }
  // Steps a statement that returns no rows.
  Status Run(std::string_view what) {
    StatusOr<bool> row = Step(what);
    if (!row.ok()) return row.status();
    return OkStatus();
  }
  // The result code of the last Step.
  int last_rc() const { return last_rc_; }

  void Reset() {
    if (stmt_ == nullptr) return;
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    bind_rc_ = SQLITE_OK;
  }

  sqlite3_stmt* get() const { return stmt_; }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int bind_rc_ = SQLITE_OK;
  int last_rc_ = SQLITE_OK;
};

// BEGIN IMMEDIATE ... COMMIT; rolled back when destroyed uncommitted.
// IMMEDIATE takes the write lock up front, so the read-then-write in a
// transaction is atomic even against another process on the same file.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() {
    if (open_ && sqlite3_get_autocommit(db_) == 0) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
  }

  Status Begin() {
    CR_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE", "begin transaction"));
    open_ = true;
    return OkStatus();
  }
  Status Commit() {
    CR_RETURN_IF_ERROR(Exec(db_, "COMMIT", "commit"));
    open_ = false;
    return OkStatus();
  }

 private:
  sqlite3* db_;
  bool open_ = false;
};

std::string ColumnString(sqlite3_stmt* stmt, int column) {
  const unsigned char* text = sqlite3_column_text(stmt, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
}

// Runs a one-row, one-column query of static SQL (a PRAGMA).
StatusOr<std::string> QueryOne(sqlite3* db, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, sql, -1, &raw, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, sql);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
  rc = sqlite3_step(stmt.get());
  if (rc == SQLITE_ROW) return ColumnString(stmt.get(), 0);
  if (rc == SQLITE_DONE) return InternalError(std::string(sql) + ": no row", "store_error");
  return SqliteError(db, rc, sql);
}

StatusOr<std::string> TransitionsToJson(const std::vector<store::Transition>& transitions) {
  try {
    nlohmann::json array = nlohmann::json::array();
    for (const store::Transition& t : transitions) {
      array.push_back(
          {{"status", std::string(store::JobStatusName(t.status))}, {"at_ms", t.at_ms}});
    }
    return array.dump();
  } catch (const std::exception& e) {
    return InternalError(std::string("serializing transitions: ") + e.what(), "store_error");
  }
}

StatusOr<std::vector<store::Transition>> ParseTransitions(std::string_view text,
                                                         const std::string& id) {
  auto corrupt = [&id](std::string_view why) {
    return CorruptError("job " + id + ": stored transitions " + std::string(why));
  };
  try {
    nlohmann::json array = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (array.is_discarded()) return corrupt("are not JSON");
    if (!array.is_array()) return corrupt("are not an array");
    std::vector<store::Transition> transitions;
    transitions.reserve(array.size());
    for (const nlohmann::json& entry : array) {
      if (!entry.is_object()) return corrupt("have a non-object entry");
      auto status = entry.find("status");
      auto at_ms = entry.find("at_ms");
      if (status == entry.end() || !status->is_string() || at_ms == entry.end() ||
          !at_ms->is_number_integer()) {
        return corrupt("have an entry without status or at_ms");
      }
      std::optional<JobStatus> parsed =
          store::ParseJobStatus(status->get_ref<const std::string&>());
      if (!parsed) return corrupt("have an unknown status");
      transitions.push_back({*parsed, at_ms->get<int64_t>()});
    }
    return transitions;
  } catch (const std::exception& e) {
    return corrupt(e.what());
  }
}

// Reads a row of CR_JOB_COLUMNS (or CR_LIST_COLUMNS).
StatusOr<JobRecord> ReadJob(sqlite3_stmt* stmt) {
  JobRecord job;
  job.id = ColumnString(stmt, 0);
  job.tenant = ColumnString(stmt, 1);
  std::string status = ColumnString(stmt, 2);
  std::optional<JobStatus> parsed = store::ParseJobStatus(status);
  if (!parsed) return CorruptError("job " + job.id + " has unknown status '" + status + "'");
  job.status = *parsed;
  job.language = ColumnString(stmt, 3);
  job.request_json = ColumnString(stmt, 4);
  job.code_sha256 = ColumnString(stmt, 5);
  job.inputs_sha256 = ColumnString(stmt, 6);
  job.cache_key = ColumnString(stmt, 7);
  job.image = ColumnString(stmt, 8);
  job.image_digest = ColumnString(stmt, 9);
  job.limits_json = ColumnString(stmt, 10);
  job.callback_url = ColumnString(stmt, 11);
  job.replay_of = ColumnString(stmt, 12);
  job.cached = sqlite3_column_int64(stmt, 13) != 0;
  job.attempt = static_cast<int>(sqlite3_column_int64(stmt, 14));
  job.created_at_ms = sqlite3_column_int64(stmt, 15);
  job.started_at_ms = sqlite3_column_int64(stmt, 16);
  job.finished_at_ms = sqlite3_column_int64(stmt, 17);
  CR_ASSIGN_OR_RETURN(job.transitions, ParseTransitions(ColumnString(stmt, 18), job.id));
  job.result_json = ColumnString(stmt, 19);
  job.kind = ColumnString(stmt, 20);
  job.progress_json = ColumnString(stmt, 21);
  return job;
}

// Reads every row of `stmt` as a job.
StatusOr<std::vector<JobRecord>> ReadJobs(ScopedStatement& stmt, std::string_view what) {
  std::vector<JobRecord> jobs;
  while (true) {
    CR_ASSIGN_OR_RETURN(bool row, stmt.Step(what));
    if (!row) return jobs;
    CR_ASSIGN_OR_RETURN(JobRecord job, ReadJob(stmt.get()));
    jobs.push_back(std::move(job));
  }
}

// List cursor: "<created_at_ms>_<id>" of the last row of the previous page.
struct Cursor {
  int64_t created_at_ms = 0;
  std::string id;
};

std::string FormatCursor(const JobRecord& job) {
  return std::to_string(job.created_at_ms) + "_" + job.id;
}

std::optional<Cursor> ParseCursor(std::string_view text) {
  size_t sep = text.find('_');
  if (sep == std::string_view::npos || sep == 0 || sep + 1 == text.size()) return std::nullopt;
  std::string_view ms = text.substr(0, sep);
  size_t digits_from = ms[0] == '-' ? 1 : 0;
  if (digits_from == ms.size()) return std::nullopt;
  for (size_t i = digits_from; i < ms.size(); ++i) {
    if (ms[i] < '0' || ms[i] > '9') return std::nullopt;
  }
  Cursor cursor;
  auto [end, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), cursor.created_at_ms);
  if (ec != std::errc() || end != ms.data() + ms.size()) return std::nullopt;
  std::string_view id = text.substr(sep + 1);
  for (char c : id) {
    if (c <= ' ' || c > '~') return std::nullopt;  // Printable ASCII only.
  }
  cursor.id = std::string(id);
  return cursor;
}

Status Configure(sqlite3* db) {
  sqlite3_extended_result_codes(db, 1);
  int rc = sqlite3_busy_timeout(db, kBusyTimeoutMs);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "busy_timeout");
  CR_ASSIGN_OR_RETURN(std::string mode, QueryOne(db, "PRAGMA journal_mode = WAL"));
  if (mode != "wal") {
    return UnavailableError("journal_mode=WAL not supported here (got '" + mode + "')",
                            "store_unavailable");
  }
  CR_RETURN_IF_ERROR(Exec(db, "PRAGMA synchronous = FULL", "synchronous=FULL"));
  CR_RETURN_IF_ERROR(Exec(db, "PRAGMA foreign_keys = ON", "foreign_keys=ON"));
  // What a redaction or purge removes is overwritten, not left in free
  // space (see Transition).
  CR_RETURN_IF_ERROR(Exec(db, "PRAGMA secure_delete = ON", "secure_delete=ON"));
  return OkStatus();
}

// Brings the schema to kSchemaVersion, one migration per transaction. The
// version is read under the write lock, so two processes opening a new file
// at once migrate it once.
Status Migrate(sqlite3* db) {
  while (true) {
    Transaction txn(db);
    CR_RETURN_IF_ERROR(txn.Begin());
    CR_ASSIGN_OR_RETURN(std::string text, QueryOne(db, "PRAGMA user_version"));
    int version = -1;
    std::from_chars(text.data(), text.data() + text.size(), version);
    if (version == kSchemaVersion) return txn.Commit();
    if (version < 0 || version > kSchemaVersion) {
      return FailedPreconditionError("database schema version " + text +
                                         " is not supported (this build knows up to " +
                                         std::to_string(kSchemaVersion) + ")",
                                     "schema_too_new");
    }
    CR_RETURN_IF_ERROR(Exec(db, kMigrations[version], "migrate schema"));
    // PRAGMA takes no bound parameters; the value is our own constant.
    std::string set_version = "PRAGMA user_version = " + std::to_string(version + 1);
    CR_RETURN_IF_ERROR(Exec(db, set_version.c_str(), "set schema version"));
    CR_RETURN_IF_ERROR(txn.Commit());
  }
}

}  // namespace

class SqliteJobStore::StatementCache {
 public:
  explicit StatementCache(sqlite3* db) : db_(db) {}
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;
  ~StatementCache() {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  }

  StatusOr<ScopedStatement> Prepare(const char* sql) {
    auto it = statements_.find(sql);
    if (it == statements_.end()) {
      sqlite3_stmt* stmt = nullptr;
      int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
      if (rc != SQLITE_OK) {
        sqlite3_finalize(stmt);
        return SqliteError(db_, rc, "prepare");
      }
      it = statements_.emplace(sql, stmt).first;
    }
    return ScopedStatement(db_, it->second);
  }

 private:
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

SqliteJobStore::SqliteJobStore(sqlite3* db, RequestRedactor redactor)
    : db_(db), statements_(std::make_unique<StatementCache>(db)), redactor_(std::move(redactor)) {}

SqliteJobStore::~SqliteJobStore() {
  statements_.reset();  // Finalize before closing.
  sqlite3_close_v2(db_);
}

namespace {

// Creates `path` 0600 if it is missing, and makes it (and any -wal/-shm
// file an earlier process left) 0600 if it exists. Never follows a symlink.
Status MakePrivate(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::string file = path + suffix;
    int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (suffix[0] == '\0' ? O_CREAT : 0);
    int fd = open(file.c_str(), flags, 0600);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      return UnavailableError("open " + file + ": " + strerror(errno), "store_unavailable");
    }
    int rc = fchmod(fd, 0600);
    int err = errno;
    close(fd);
    if (rc != 0) {
      return UnavailableError("chmod " + file + ": " + strerror(err), "store_unavailable");
    }
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<SqliteJobStore>> SqliteJobStore::Open(const std::string& path,
                                                               RequestRedactor redactor) {
  if (path.empty()) return InvalidArgumentError("empty database path", "invalid_path");
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      return UnavailableError(
          "open " + path + ": cannot create " + parent.string() + ": " + ec.message(),
          "store_unavailable");
    }
  }
  // The records hold every request (code, stdin, files) and its output:
  // root's alone. SQLite gives its -wal and -shm files the database's mode.
  CR_RETURN_IF_ERROR(MakePrivate(path));
  sqlite3* raw = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close_v2);
  if (rc != SQLITE_OK) {
    return UnavailableError(
        "open " + path + ": " + (raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)),
        "store_unavailable");
  }
  Status configured = Configure(db.get());
  if (configured.ok()) configured = Migrate(db.get());
  if (!configured.ok()) return configured.WithContext("open " + path);
  return std::unique_ptr<SqliteJobStore>(new SqliteJobStore(db.release(), std::move(redactor)));
}

Status SqliteJobStore::Insert(const std::vector<JobRecord>& records) {
  if (records.empty()) return OkStatus();
  std::vector<std::string> transitions;
  transitions.reserve(records.size());
  for (const JobRecord& job : records) {
    if (job.id.empty()) return InvalidArgumentError("job without id", "invalid_job");
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
      insert.Bind(1, job.id);
      insert.Bind(2, job.tenant);
      insert.Bind(3, store::JobStatusName(job.status));
      insert.Bind(4, job.language);
      std::string request = job.request_json;
      std::string callback = job.callback_url;
      if (redactor_ && store::IsTerminal(job.status)) redactor_(request, callback);
      insert.Bind(5, request);
      insert.Bind(6, job.code_sha256);
      insert.Bind(7, job.inputs_sha256);
      insert.Bind(8, job.cache_key);
      insert.Bind(9, job.image);
      insert.Bind(10, job.image_digest);
      insert.Bind(11, job.limits_json);
      insert.Bind(12, callback);
      insert.Bind(13, job.replay_of);
      insert.BindBool(14, job.cached);
      insert.Bind(15, static_cast<int64_t>(job.attempt));
      insert.Bind(16, job.created_at_ms);
      insert.Bind(17, job.started_at_ms);
      insert.Bind(18, job.finished_at_ms);
      insert.Bind(19, transitions[i]);
      insert.Bind(20, job.result_json);
      insert.Bind(21, job.kind);
      insert.Bind(22, job.progress_json);
      Status inserted = insert.Run("insert job " + job.id);
      if (!inserted.ok()) {
        if ((insert.last_rc() & 0xff) == SQLITE_CONSTRAINT) {
          return AlreadyExistsError("job " + job.id + " already exists", "job_exists");
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
                                "invalid_transition");
  }

  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  std::vector<store::Transition> transitions;
  std::string request, callback;  // As stored.
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kSelectForTransitionSql));
    select.Bind(1, id);
    CR_ASSIGN_OR_RETURN(bool found, select.Step("read job " + id));
    if (!found) return NotFoundError("job " + id + " not found", "job_not_found");
    std::string from_name = ColumnString(select.get(), 0);
    std::optional<JobStatus> from = store::ParseJobStatus(from_name);
    if (!from) return CorruptError("job " + id + " has unknown status '" + from_name + "'");
    if (store::IsTerminal(*from)) {
      return FailedPreconditionError("job " + id + " is already " + from_name +
                                         "; cannot move it to " +
                                         std::string(store::JobStatusName(to)),
                                     "job_terminal");
    }
    CR_ASSIGN_OR_RETURN(transitions, ParseTransitions(ColumnString(select.get(), 1), id));
    request = ColumnString(select.get(), 2);
    callback = ColumnString(select.get(), 3);
  }
  transitions.push_back({to, at_ms});
  CR_ASSIGN_OR_RETURN(std::string transitions_json, TransitionsToJson(transitions));
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
    std::string redacted = request, redacted_callback = callback;
    redactor_(redacted, redacted_callback);
    if (redacted != request || redacted_callback != callback) {
      CR_ASSIGN_OR_RETURN(ScopedStatement update, statements_->Prepare(kRedactRequestSql));
      update.Bind(1, id);
      update.Bind(2, redacted);
      update.Bind(3, redacted_callback);
      CR_RETURN_IF_ERROR(update.Run("redact request of job " + id));
      redacted_now = true;
    }
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
    if (!found) return NotFoundError("job " + id + " not found", "job_not_found");
    return FailedPreconditionError("job " + id + " is already " + ColumnString(select.get(), 0),
                                   "job_terminal");
  }
  return OkStatus();
}

StatusOr<JobRecord> SqliteJobStore::Get(const std::string& id, const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kGetJobSql));
  select.Bind(1, id);
  select.Bind(2, tenant);
  CR_ASSIGN_OR_RETURN(bool found, select.Step("get job " + id));
  if (!found) return NotFoundError("job " + id + " not found", "job_not_found");
  return ReadJob(select.get());
}

StatusOr<ListPage> SqliteJobStore::List(const ListFilter& filter) {
  std::optional<Cursor> cursor;
  if (!filter.cursor.empty()) {
    cursor = ParseCursor(filter.cursor);
    if (!cursor) return InvalidArgumentError("malformed list cursor", "invalid_cursor");
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
    page.next_cursor = FormatCursor(page.jobs.back());
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
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kCacheGetSql));
  select.Bind(1, key);
  select.Bind(2, now_ms);
  CR_ASSIGN_OR_RETURN(bool found, select.Step("cache get"));
  if (!found) return std::optional<std::string>();
  return std::optional<std::string>(ColumnString(select.get(), 0));
}

Status SqliteJobStore::CachePut(const std::string& key, const std::string& result_json,
                                int64_t expires_at_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement upsert, statements_->Prepare(kCachePutSql));
  upsert.Bind(1, key);
  upsert.BindBorrowed(2, result_json);
  upsert.Bind(3, expires_at_ms);
  return upsert.Run("cache put");
}

StatusOr<int> SqliteJobStore::CachePurgeExpired(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement del, statements_->Prepare(kCachePurgeSql));
  del.Bind(1, now_ms);
  CR_RETURN_IF_ERROR(del.Run("cache purge"));
  return sqlite3_changes(db_);
}

}  // namespace coderunner::store
