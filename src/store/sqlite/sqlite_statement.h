// SQLite statements of the job store: a cache of prepared statements, the
// borrowed statement it hands out, and one-shot helpers for static SQL.
// Internal to src/store. None of this is thread-safe: the store's mutex
// serializes every use of a connection and its statements.
#ifndef CODERUNNER_SRC_STORE_SQLITE_SQLITE_STATEMENT_H_
#define CODERUNNER_SRC_STORE_SQLITE_SQLITE_STATEMENT_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "coderunner/common/status.h"

namespace coderunner::store {

// A statement borrowed from a SqliteStatementCache: bindings are collected
// (the first failure is reported by Step) and the statement is reset when
// this goes out of scope, so that it holds no read lock and can be reused.
// Does not own the statement or the connection; both must outlive it.
class ScopedStatement {
 public:
  ScopedStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ScopedStatement(ScopedStatement&& other) noexcept;
  ScopedStatement(const ScopedStatement&) = delete;
  ScopedStatement& operator=(const ScopedStatement&) = delete;
  ScopedStatement& operator=(ScopedStatement&&) = delete;
  ~ScopedStatement() { Reset(); }

  // Binds `value` (copied) as text to parameter `index` (1-based).
  void Bind(int index, std::string_view value);
  // Binds `value` without a copy (a result can be several MiB): it must
  // outlive this statement's Step (the bindings are cleared on Reset).
  void BindBorrowed(int index, std::string_view value);
  // Binds `value` as an integer to parameter `index` (1-based).
  void Bind(int index, int64_t value);
  // Binds `value` as 1 or 0 to parameter `index` (1-based).
  void BindBool(int index, bool value);

  // Steps the statement: true for a row, false when done. A failed binding
  // or step is the Status of SqliteError, with `what` as its context.
  StatusOr<bool> Step(std::string_view what);
  // Steps a statement that returns no rows; failure as Step.
  Status Run(std::string_view what);
  // The result code of the last Step (SQLITE_OK before the first).
  int last_rc() const { return last_rc_; }

  // Resets the statement and clears its bindings, for the next use.
  void Reset();

  // The borrowed statement, to read columns of the current row.
  sqlite3_stmt* get() const { return stmt_; }

 private:
  void Check(int rc);

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int bind_rc_ = SQLITE_OK;
  int last_rc_ = SQLITE_OK;
};

// The prepared statements of one connection, kept across calls and keyed by
// their SQL text. Finalizes them when destroyed: destroy it before closing
// the connection.
class SqliteStatementCache {
 public:
  // `db` is borrowed and must outlive this cache.
  explicit SqliteStatementCache(sqlite3* db) : db_(db) {}
  SqliteStatementCache(const SqliteStatementCache&) = delete;
  SqliteStatementCache& operator=(const SqliteStatementCache&) = delete;
  ~SqliteStatementCache();

  // The statement for `sql`, prepared (persistent) on first use. A failure
  // to prepare is the Status of SqliteError. The statement returned must be
  // released (destroyed) before the same SQL is prepared again.
  StatusOr<ScopedStatement> Prepare(const char* sql);

 private:
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

// Column `column` (0-based) of the current row of `stmt` as text; "" for NULL.
std::string ColumnString(sqlite3_stmt* stmt, int column);

// Runs static SQL `sql` (no values) on `db`; failure as SqliteError, with
// `what` as its context.
Status Exec(sqlite3* db, const char* sql, std::string_view what);

// Runs a one-row, one-column query of static SQL (a PRAGMA) and returns the
// value as text. No row is Internal ("store_error").
StatusOr<std::string> QueryOne(sqlite3* db, const char* sql);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_SQLITE_STATEMENT_H_
