#include "coderunner/api/probe_cache.h"

namespace coderunner::api {

ProbeCache::ProbeCache(std::chrono::milliseconds ttl, std::chrono::milliseconds wait_bound,
                       Compute compute, ProbeAnswer overdue)
    : ttl_(ttl),
      wait_bound_(wait_bound),
      compute_(std::move(compute)),
      overdue_(std::move(overdue)) {}

ProbeCache::~ProbeCache() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int ProbeCache::computations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return computations_;
}

ProbeAnswer ProbeCache::Get() {
  const Clock::time_point asked = Clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  if (answer_ && ttl_.count() > 0 && asked < computed_at_ + ttl_) return *answer_;
  if (!computing_) {
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
    computing_ = wanted_ = true;
    asked_at_ = asked;
    cv_.notify_all();
  }
  // An answer finished after this call began is as fresh as one it would
  // have asked for.
  const bool fresh = cv_.wait_until(lock, asked_at_ + wait_bound_,
                                    [&] { return answer_ && computed_at_ >= asked; });
  return fresh ? *answer_ : overdue_;
}

void ProbeCache::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || wanted_; });
    if (stopping_) return;
    wanted_ = false;
    ++computations_;
    lock.unlock();
    ProbeAnswer answer = compute_();
    lock.lock();
    answer_ = std::move(answer);
    computed_at_ = Clock::now();
    computing_ = false;
    cv_.notify_all();
  }
}

}  // namespace coderunner::api
