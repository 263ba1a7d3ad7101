#include "pg_connection.h"

#include <errno.h>
#include <poll.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>

#include "coderunner/store/job_store.h"
#include "store_errors.h"

namespace coderunner::store {
namespace {

constexpr const char* kRedacted = "***";
constexpr std::string_view kSqlStateUniqueViolation = "23505";
constexpr Oid kTextOid = 25;  // pg_type's text.
constexpr int kMaxIdleReads = 4;

bool Succeeded(const PgResult& result) {
  return result.status() == PGRES_COMMAND_OK || result.status() == PGRES_TUPLES_OK;
}

// Whether SQLSTATE `state` means the connection is gone (class 08, or the
// server shutting down or restarting: 57P01..57P03).
bool IsConnectionLost(std::string_view state) {
  return state.substr(0, 2) == "08" || state == "57P01" || state == "57P02" || state == "57P03";
}

// Redacts the value of a password= pair in key=value `conninfo`.
std::string RedactKeyValues(std::string_view conninfo) {
  std::string out;
  size_t i = 0;
  while (i < conninfo.size()) {
    size_t eq = conninfo.find('=', i);
    if (eq == std::string_view::npos) {
      out.append(conninfo.substr(i));
      break;
    }
    std::string_view key = conninfo.substr(i, eq - i);
    size_t start = key.find_first_not_of(" \t");
    std::string_view bare = start == std::string_view::npos ? "" : key.substr(start);
    bare = bare.substr(0, bare.find_last_not_of(" \t") + 1);
    size_t j = conninfo.find_first_not_of(" \t", eq + 1);
    if (j == std::string_view::npos) j = conninfo.size();
    size_t end = j;
    if (end < conninfo.size() && conninfo[end] == '\'') {
      for (++end; end < conninfo.size() && conninfo[end] != '\''; ++end) {
        if (conninfo[end] == '\\') ++end;
      }
      end = std::min(end + 1, conninfo.size());
    } else {
      while (end < conninfo.size() && conninfo[end] != ' ' && conninfo[end] != '\t') ++end;
    }
    out.append(conninfo.substr(i, j - i));
    out.append(bare == "password" ? kRedacted : conninfo.substr(j, end - j));
    i = end;
  }
  return out;
}

// Redacts user:password@ and a password= query parameter of URI `conninfo`.
std::string RedactUri(std::string_view conninfo) {
  std::string out(conninfo);
  size_t scheme = out.find("://");
  size_t authority = scheme + 3;
  size_t path = out.find_first_of("/?", authority);
  size_t at = out.rfind('@', path == std::string::npos ? out.size() : path);
  if (at != std::string::npos && at >= authority) {
    size_t colon = out.find(':', authority);
    if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, kRedacted);
  }
  size_t query = out.find('?');
  while (query != std::string::npos) {
    size_t key = query + 1;
    size_t amp = out.find('&', key);
    size_t stop = amp == std::string::npos ? out.size() : amp;
    if (out.compare(key, 9, "password=") == 0) {
      out.replace(key + 9, stop - key - 9, kRedacted);
      amp = out.find('&', key);
    }
    query = amp;
  }
  return out;
}

// Whether PostgreSQL text `sql` refers to parameter $`index`.
bool UsesParam(const std::string& sql, int index) {
  const std::string name = "$" + std::to_string(index);
  for (size_t at = sql.find(name); at != std::string::npos; at = sql.find(name, at + 1)) {
    size_t next = at + name.size();
    if (next >= sql.size() || sql[next] < '0' || sql[next] > '9') return true;
  }
  return false;
}

}  // namespace

std::string RedactConninfo(std::string_view conninfo) {
  if (conninfo.rfind("postgresql://", 0) == 0 || conninfo.rfind("postgres://", 0) == 0) {
    return RedactUri(conninfo);
  }
  return RedactKeyValues(conninfo);
}

std::string PgPlaceholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote != 0) {
      if (c == quote || (quote == '\n' && c == '\n')) quote = 0;
      out.push_back(c);
    } else if (c == '\'' || c == '"') {
      quote = c;
      out.push_back(c);
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      quote = '\n';
      out.push_back(c);
    } else if (c == '?' && i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
      out.push_back('$');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

void PgParams::Bind(int index, std::string_view value) {
  if (values_.size() < static_cast<size_t>(index)) values_.resize(static_cast<size_t>(index));
  values_[static_cast<size_t>(index) - 1] = std::string(value);
}

void PgParams::Bind(int index, int64_t value) { Bind(index, std::to_string(value)); }

void PgParams::BindBool(int index, bool value) { Bind(index, value ? "1" : "0"); }

int64_t PgResult::affected() const {
  const char* n = PQcmdTuples(result_.get());
  int64_t value = 0;
  std::from_chars(n, n + std::strlen(n), value);
  return value;
}

std::string PgResult::Text(int row, int column) const {
  if (PQgetisnull(result_.get(), row, column)) return "";
  return std::string(PQgetvalue(result_.get(), row, column),
                     static_cast<size_t>(PQgetlength(result_.get(), row, column)));
}

int64_t PgResult::Int(int row, int column) const {
  const char* text = PQgetvalue(result_.get(), row, column);
  int64_t value = 0;
  std::from_chars(text, text + PQgetlength(result_.get(), row, column), value);
  return value;
}

StatusOr<std::unique_ptr<PgConnection>> PgConnection::Connect(const std::string& conninfo,
                                                              const std::string& password,
                                                              int timeout_ms,
                                                              const std::string& app_name,
                                                              int call_timeout_ms) {
  const std::string timeout = std::to_string(std::max(1, (timeout_ms + 999) / 1000));
  const std::string user_timeout = std::to_string(timeout_ms);
  // Over TCP, a server that vanishes (power cut, partition) must break the
  // connection instead of hanging a call: keepalives probe an idle one, and
  // tcp_user_timeout bounds data left unacknowledged. Before "dbname", so
  // that the configured conninfo may override them.
  std::vector<const char*> keys = {"keepalives",       "keepalives_idle",  "keepalives_interval",
                                   "keepalives_count", "tcp_user_timeout", "dbname",
                                   "connect_timeout"};
  std::vector<const char*> values = {
      "1", "10", "5", "3", user_timeout.c_str(), conninfo.c_str(), timeout.c_str()};
  if (!app_name.empty()) {
    keys.push_back("fallback_application_name");
    values.push_back(app_name.c_str());
  }
  if (!password.empty()) {
    keys.push_back("password");
    values.push_back(password.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (conn == nullptr) {
    return UnavailableError("connect to " + RedactConninfo(conninfo) + ": out of memory",
                            kReasonStoreUnavailable);
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string detail = PQerrorMessage(conn);
    PQfinish(conn);
    // libpq never echoes a password, but a message is no place to trust that.
    if (!password.empty()) {
      for (size_t at = detail.find(password); at != std::string::npos;
           at = detail.find(password, at)) {
        detail.replace(at, password.size(), kRedacted);
      }
    }
    while (!detail.empty() && detail.back() == '\n') detail.pop_back();
    return UnavailableError("connect to " + RedactConninfo(conninfo) + ": " + detail,
                            kReasonStoreUnavailable);
  }
  // Nonblocking, so that sending a large statement to a server that stopped
  // reading cannot block a call past its bound (Await flushes and waits).
  if (PQsetnonblocking(conn, 1) != 0) {
    PQfinish(conn);
    return UnavailableError("connect to " + RedactConninfo(conninfo) + ": cannot go nonblocking",
                            kReasonStoreUnavailable);
  }
  return std::unique_ptr<PgConnection>(new PgConnection(conn, call_timeout_ms));
}

PgConnection::~PgConnection() { PQfinish(conn_); }

std::string PgConnection::Option(std::string_view keyword) const {
  std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> options(PQconninfo(conn_),
                                                                         &PQconninfoFree);
  for (PQconninfoOption* o = options.get(); o != nullptr && o->keyword != nullptr; ++o) {
    if (keyword == o->keyword) return o->val == nullptr ? "" : o->val;
  }
  return "";
}

bool PgConnection::broken() const { return broken_ || PQstatus(conn_) != CONNECTION_OK; }

bool PgConnection::StillUp() {
  if (broken()) return false;
  // An idle session hears from the server only as it ends (an error such
  // as 57P01, then EOF): read while the socket is readable, up to a few
  // times, so that libpq sees the EOF after the message.
  for (int i = 0; i < kMaxIdleReads && !broken_; ++i) {
    pollfd fd{PQsocket(conn_), POLLIN, 0};
    if (poll(&fd, 1, 0) <= 0) break;
    if (PQconsumeInput(conn_) == 0 || PQstatus(conn_) != CONNECTION_OK) broken_ = true;
  }
  return !broken_;
}

Status PgConnection::Error(const PGresult* result, std::string_view what) {
  std::string detail =
      result != nullptr ? PQresultErrorMessage(result) : std::string(PQerrorMessage(conn_));
  while (!detail.empty() && detail.back() == '\n') detail.pop_back();
  const char* field = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string_view state = field != nullptr ? field : "";
  std::string message = std::string(what) + ": " + detail;
  if (PQstatus(conn_) != CONNECTION_OK || IsConnectionLost(state)) {
    broken_ = true;
    return UnavailableError(std::move(message), kReasonStoreUnavailable);
  }
  if (state == kSqlStateUniqueViolation) return AlreadyExistsError(std::move(message));
  return InternalError(std::move(message), kReasonStoreError);
}

StatusOr<PgResult> PgConnection::Exec(std::string_view sql, const PgParams& params,
                                      std::string_view what) {
  std::vector<const char*> values;
  values.reserve(params.values().size());
  for (const std::string& value : params.values()) values.push_back(value.c_str());
  const std::string text = PgPlaceholders(sql);
  // A parameter the text does not use cannot be typed by the server: say
  // it is text (the shared list texts leave some of ?1..?5 unused).
  std::vector<Oid> types(values.size(), 0);
  for (size_t i = 0; i < types.size(); ++i) {
    if (!UsesParam(text, static_cast<int>(i) + 1)) types[i] = kTextOid;
  }
  if (PQsendQueryParams(conn_, text.c_str(), static_cast<int>(values.size()), types.data(),
                        values.data(), nullptr, nullptr, /*resultFormat=*/0) == 0) {
    return Error(nullptr, what);
  }
  return Await(what, call_timeout_ms_);
}

Status PgConnection::ExecScript(const char* sql, std::string_view what, int timeout_ms) {
  if (PQsendQuery(conn_, sql) == 0) return Error(nullptr, what);
  return Await(what, timeout_ms == kCallTimeout ? call_timeout_ms_ : timeout_ms).status();
}

bool PgConnection::WaitSocket(short events,
                              std::optional<std::chrono::steady_clock::time_point> deadline) {
  for (;;) {
    int wait_ms = -1;
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      wait_ms = static_cast<int>(std::min<int64_t>(left.count() + 1, INT32_MAX));
    }
    pollfd fd{PQsocket(conn_), events, 0};
    int n = poll(&fd, 1, wait_ms);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // Let libpq's next call report it.
  }
}

StatusOr<PgResult> PgConnection::Await(std::string_view what, int timeout_ms) {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (timeout_ms > 0) {
    deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  }
  auto timed_out = [&] {
    broken_ = true;  // Its answer may still come: the pool closes it.
    return UnavailableError(std::string(what) + ": no answer from the server within " +
                                std::to_string(timeout_ms) + " ms",
                            kReasonStoreUnavailable);
  };
  // Send what libpq still holds (a large statement), reading as we go.
  for (int left = PQflush(conn_); left != 0; left = PQflush(conn_)) {
    if (left < 0) return Error(nullptr, what);
    if (!WaitSocket(POLLIN | POLLOUT, deadline)) return timed_out();
    if (PQconsumeInput(conn_) == 0) return Error(nullptr, what);
  }
  std::optional<PgResult> kept;
  for (;;) {
    while (PQisBusy(conn_) != 0) {
      if (!WaitSocket(POLLIN, deadline)) return timed_out();
      if (PQconsumeInput(conn_) == 0) return Error(nullptr, what);
    }
    PGresult* next = PQgetResult(conn_);
    if (next == nullptr) break;
    // Every result is read (the connection is ready for the next call only
    // then); the first failure is kept, else the last.
    if (!kept || Succeeded(*kept))
      kept.emplace(next);
    else
      PQclear(next);
  }
  if (!kept) return Error(nullptr, what);
  if (!Succeeded(*kept)) return Error(kept->get(), what);
  return std::move(*kept);
}

PgTransaction::~PgTransaction() {
  if (open_) (void)conn_.ExecScript("ROLLBACK", "roll back");
}

Status PgTransaction::Begin() {
  CR_RETURN_IF_ERROR(conn_.ExecScript("BEGIN", "begin transaction"));
  open_ = true;
  return OkStatus();
}

Status PgTransaction::Commit() {
  open_ = false;
  return conn_.ExecScript("COMMIT", "commit");
}

}  // namespace coderunner::store
