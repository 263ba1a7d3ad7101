// The bounded connection pool of the PostgreSQL job store. Internal to
// src/store.
#ifndef CODERUNNER_SRC_STORE_POSTGRES_PG_POOL_H_
#define CODERUNNER_SRC_STORE_POSTGRES_PG_POOL_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "pg_connection.h"

namespace coderunner::store {

struct PgPoolOptions {
  std::string conninfo;           // As PgStoreOptions::conninfo.
  std::string password;           // "" for none; never in a message.
  int max_connections = 8;        // Open connections at most, >= 1.
  int connect_timeout_ms = 5000;  // Per connection, and Acquire's default wait.
  // Bound on each call of a connection (PgConnection::Connect). ms.
  int call_timeout_ms = PgConnection::kDefaultCallTimeoutMs;
};

// Thread-safe. Opens connections lazily, up to max_connections, and keeps
// idle ones for reuse. A connection that comes back broken is closed, with
// every idle one (a server restart breaks them all), and Acquire skips idle
// ones the server has closed meanwhile, so that it connects afresh.
class PgPool {
 public:
  explicit PgPool(PgPoolOptions options) : options_(std::move(options)) {}
  // Every lease must have been returned.
  ~PgPool() = default;
  PgPool(const PgPool&) = delete;
  PgPool& operator=(const PgPool&) = delete;

  // A connection borrowed from the pool, returned when destroyed.
  class Lease {
   public:
    Lease(PgPool* pool, std::unique_ptr<PgConnection> conn) : pool_(pool), conn_(std::move(conn)) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    PgConnection& operator*() const { return *conn_; }
    PgConnection* operator->() const { return conn_.get(); }

   private:
    PgPool* pool_;
    std::unique_ptr<PgConnection> conn_;
  };

  // An idle connection, else a new one while fewer than max_connections are
  // open, else waits for one to come back until `deadline`: then
  // Unavailable ("store_unavailable"). A failed connect is Unavailable too.
  StatusOr<Lease> Acquire(std::chrono::steady_clock::time_point deadline);
  // Acquire with a deadline of connect_timeout_ms from now.
  StatusOr<Lease> Acquire();

  // A new connection outside the pool and its bound.
  StatusOr<std::unique_ptr<PgConnection>> ConnectDedicated() const;

 private:
  void Release(std::unique_ptr<PgConnection> conn);

  const PgPoolOptions options_;
  std::mutex mu_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<PgConnection>> idle_;  // Guarded by mu_.
  int open_ = 0;                                     // Idle and leased; guarded by mu_.
};

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_POSTGRES_PG_POOL_H_
