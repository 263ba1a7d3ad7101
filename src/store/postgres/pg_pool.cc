#include "pg_pool.h"

#include <utility>

#include "coderunner/store/job_store.h"

namespace coderunner::store {

PgPool::Lease::~Lease() {
  if (conn_ != nullptr) pool_->Release(std::move(conn_));
}

StatusOr<PgPool::Lease> PgPool::Acquire(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    while (!idle_.empty()) {
      std::unique_ptr<PgConnection> conn = std::move(idle_.back());
      idle_.pop_back();
      if (conn->StillUp()) return Lease(this, std::move(conn));
      --open_;  // Closed by the server meanwhile: `conn` disconnects here.
    }
    if (open_ < options_.max_connections) break;
    if (returned_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
        open_ >= options_.max_connections) {
      return UnavailableError("no free PostgreSQL connection (all " +
                                  std::to_string(options_.max_connections) + " in use)",
                              kReasonStoreUnavailable);
    }
  }
  ++open_;
  lock.unlock();
  StatusOr<std::unique_ptr<PgConnection>> conn = ConnectDedicated();
  if (!conn.ok()) {
    lock.lock();
    --open_;
    returned_.notify_one();
    return conn.status();
  }
  return Lease(this, std::move(conn).value());
}

StatusOr<PgPool::Lease> PgPool::Acquire() {
  return Acquire(std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(options_.connect_timeout_ms));
}

StatusOr<std::unique_ptr<PgConnection>> PgPool::ConnectDedicated() const {
  return PgConnection::Connect(options_.conninfo, options_.password, options_.connect_timeout_ms,
                               "", options_.call_timeout_ms);
}

void PgPool::Release(std::unique_ptr<PgConnection> conn) {
  std::vector<std::unique_ptr<PgConnection>> closing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (conn->broken()) {
      closing.push_back(std::move(conn));
      for (auto& idle : idle_) closing.push_back(std::move(idle));
      open_ -= static_cast<int>(closing.size());
      idle_.clear();
    } else {
      idle_.push_back(std::move(conn));
    }
  }
  returned_.notify_all();
  // `closing` disconnects here, outside the lock.
}

}  // namespace coderunner::store
