#include "sqlite_statement.h"

#include <sqlite3.h>

#include <memory>
#include <utility>

#include "sqlite_error.h"

namespace coderunner::store {

ScopedStatement::ScopedStatement(ScopedStatement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), bind_rc_(other.bind_rc_) {}

void ScopedStatement::Bind(int index, std::string_view value) {
  Check(sqlite3_bind_text64(stmt_, index, value.empty() ? "" : value.data(), value.size(),
                            SQLITE_TRANSIENT, SQLITE_UTF8));
}

void ScopedStatement::BindBorrowed(int index, std::string_view value) {
  Check(sqlite3_bind_text64(stmt_, index, value.empty() ? "" : value.data(), value.size(),
                            SQLITE_STATIC, SQLITE_UTF8));
}

void ScopedStatement::Bind(int index, int64_t value) {
  Check(sqlite3_bind_int64(stmt_, index, value));
}

void ScopedStatement::BindBool(int index, bool value) {
  Check(sqlite3_bind_int(stmt_, index, value ? 1 : 0));
}

StatusOr<bool> ScopedStatement::Step(std::string_view what) {
  last_rc_ = bind_rc_ != SQLITE_OK ? bind_rc_ : sqlite3_step(stmt_);
  if (last_rc_ == SQLITE_ROW) return true;
  if (last_rc_ == SQLITE_DONE) return false;
  return SqliteError(db_, last_rc_, what);
}

Status ScopedStatement::Run(std::string_view what) {
  StatusOr<bool> row = Step(what);
  if (!row.ok()) return row.status();
  return OkStatus();
}

void ScopedStatement::Reset() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_rc_ = SQLITE_OK;
}

void ScopedStatement::Check(int rc) {
  if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK) bind_rc_ = rc;
}

SqliteStatementCache::~SqliteStatementCache() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
}

StatusOr<ScopedStatement> SqliteStatementCache::Prepare(const char* sql) {
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

std::string ColumnString(sqlite3_stmt* stmt, int column) {
  const unsigned char* text = sqlite3_column_text(stmt, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
}

Status Exec(sqlite3* db, const char* sql, std::string_view what) {
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, what);
  return OkStatus();
}

StatusOr<std::string> QueryOne(sqlite3* db, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, sql, -1, &raw, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, sql);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
  rc = sqlite3_step(stmt.get());
  if (rc == SQLITE_ROW) return ColumnString(stmt.get(), 0);
  if (rc == SQLITE_DONE) return InternalError(std::string(sql) + ": no row", kReasonStoreError);
  return SqliteError(db, rc, sql);
}

}  // namespace coderunner::store
