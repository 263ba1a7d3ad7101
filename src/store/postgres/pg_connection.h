// One libpq connection of the PostgreSQL job store, its results, and how
// its failures become Status. Internal to src/store. Not thread-safe: one
// thread uses a connection at a time (PgPool hands it out).
#ifndef CODERUNNER_SRC_STORE_POSTGRES_PG_CONNECTION_H_
#define CODERUNNER_SRC_STORE_POSTGRES_PG_CONNECTION_H_

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::store {

// `conninfo` (key=value pairs or a postgresql:// URI) with any password in
// it replaced by "***", for messages.
std::string RedactConninfo(std::string_view conninfo);

// `sql` with SQLite's ?N placeholders turned into PostgreSQL's $N; text in
// single quotes, double quotes and -- comments is copied as is.
std::string PgPlaceholders(std::string_view sql);

// Text parameters of a statement, 1-based as ScopedStatement's (see
// job_row_codec.h's BindJobTo). Values are copied.
class PgParams {
 public:
  void Bind(int index, std::string_view value);
  // As Bind (libpq needs its own copy anyway).
  void BindBorrowed(int index, std::string_view value) { Bind(index, value); }
  void Bind(int index, int64_t value);
  // "1" or "0": PostgreSQL reads both as a boolean and as an integer.
  void BindBool(int index, bool value);
  const std::vector<std::string>& values() const { return values_; }

 private:
  std::vector<std::string> values_;
};

// A query's result (owned; cleared when destroyed), values in text format.
class PgResult {
 public:
  explicit PgResult(PGresult* result) : result_(result, &PQclear) {}
  // PGRES_FATAL_ERROR for a null result (out of memory, connection lost).
  ExecStatusType status() const { return PQresultStatus(result_.get()); }
  const PGresult* get() const { return result_.get(); }
  int rows() const { return PQntuples(result_.get()); }
  // Rows changed by an INSERT, UPDATE or DELETE.
  int64_t affected() const;
  // Column `column` (0-based) of row `row` as text; "" for NULL.
  std::string Text(int row, int column) const;
  // The same as an integer (0 for NULL or non-numbers).
  int64_t Int(int row, int column) const;

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> result_;
};

class PgConnection {
 public:
  // Bound on one call when Connect is given none. ms.
  static constexpr int kDefaultCallTimeoutMs = 30000;
  // ExecScript's `timeout_ms` for "the connection's own bound".
  static constexpr int kCallTimeout = -1;
  // ExecScript's `timeout_ms` for "no bound" (schema migrations, which may
  // rewrite a large table).
  static constexpr int kNoTimeout = 0;

  // Connects with PQconnectdbParams (expand_dbname=1, so `conninfo` may be
  // a URI), passing `password` ("" for none) as its own parameter and
  // connect_timeout from `timeout_ms` (whole seconds, at least 1), and
  // `app_name` ("" for none) as fallback_application_name (the session's
  // name in pg_stat_activity unless `conninfo` sets application_name).
  // `call_timeout_ms` (> 0) bounds each later Exec and ExecScript, from
  // sending to the last byte of the answer. Unavailable
  // ("store_unavailable") on failure; the message holds the conninfo
  // redacted and never the password.
  static StatusOr<std::unique_ptr<PgConnection>> Connect(
      const std::string& conninfo, const std::string& password, int timeout_ms,
      const std::string& app_name = "", int call_timeout_ms = kDefaultCallTimeoutMs);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs one statement `sql` (?N placeholders) with `params`. Failure as
  // PgError with `what` as context: a lost connection is Unavailable
  // ("store_unavailable") and marks this connection broken; a unique
  // violation is AlreadyExists; anything else Internal ("store_error").
  // A server that has not answered within the call timeout (it accepted
  // the connection and hangs: stopped, overloaded, a partition that keeps
  // the socket open) is Unavailable ("store_unavailable") too, and the
  // connection is marked broken (its answer may still come), so that the
  // pool closes it.
  StatusOr<PgResult> Exec(std::string_view sql, const PgParams& params, std::string_view what);
  // Runs static SQL `sql` (several statements, no parameters), bounded by
  // `timeout_ms`: kCallTimeout (the connection's), kNoTimeout or a bound in
  // ms. Failure as Exec's; with several statements, the first that failed.
  Status ExecScript(const char* sql, std::string_view what, int timeout_ms = kCallTimeout);

  // The value of connection option `keyword` as libpq uses it (its
  // PQconninfo), "" when unset.
  std::string Option(std::string_view keyword) const;

  // True once a call found the connection lost (or libpq reports it bad):
  // PgPool drops it.
  bool broken() const;
  // Reads what the server sent while this connection sat idle, without
  // waiting: false if it is broken or the server closed it (a restart
  // ends every session), so that PgPool opens a new one instead.
  bool StillUp();

  // The libpq connection, for what this class does not wrap (PQsocket,
  // PQconsumeInput, PQnotifies). Owned by this object.
  PGconn* raw() { return conn_; }

 private:
  PgConnection(PGconn* conn, int call_timeout_ms)
      : conn_(conn), call_timeout_ms_(call_timeout_ms) {}
  // Waits for the answer to the query just sent, at most `timeout_ms`
  // (kNoTimeout: no bound), and returns its result: the first failed one
  // of a script, else the last. Failure: a lost connection or the bound
  // passed (both mark it broken), as Error's.
  StatusOr<PgResult> Await(std::string_view what, int timeout_ms);
  // Waits until the socket is ready for `events` or `deadline` (nullopt:
  // no bound). False when the deadline passed.
  bool WaitSocket(short events, std::optional<std::chrono::steady_clock::time_point> deadline);
  // The Status of a failed `result` (may be null) of a call on this
  // connection; marks it broken when the connection is lost.
  Status Error(const PGresult* result, std::string_view what);

  PGconn* conn_;
  const int call_timeout_ms_;
  bool broken_ = false;
};

// A transaction on a connection: Begin, then Commit; rolled back when
// destroyed uncommitted. The connection must outlive it.
class PgTransaction {
 public:
  explicit PgTransaction(PgConnection& conn) : conn_(conn) {}
  ~PgTransaction();
  PgTransaction(const PgTransaction&) = delete;
  PgTransaction& operator=(const PgTransaction&) = delete;
  Status Begin();
  Status Commit();

 private:
  PgConnection& conn_;
  bool open_ = false;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_POSTGRES_PG_CONNECTION_H_
