// RateLimiter: requests per minute per tenant (token bucket).
#ifndef CODERUNNER_AUTH_RATE_LIMITER_H_
#define CODERUNNER_AUTH_RATE_LIMITER_H_

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace coderunner::auth {

// Each tenant has a bucket of `per_minute` tokens refilled continuously at
// per_minute/60 per second; a request takes one. Implementations: the
// node's own buckets (LocalRateLimiter) and, in a fleet, buckets shared
// through the job store (store::SharedRateLimiter).
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;

  // True if a request of `tenant` (whose tier allows `per_minute` > 0
  // requests per minute; a value < 1 counts as 1) may proceed, taking one
  // token. Otherwise false and `retry_after_s` (not null) says in how many
  // seconds one token will be back (at least 1). Never fails: an
  // implementation that cannot decide must answer itself (see
  // store::SharedRateLimiter). Thread-safe.
  virtual bool Allow(const std::string& tenant, int per_minute, int* retry_after_s) = 0;
};

// The buckets of this process only (a fleet of N nodes lets a tenant
// through N times). Memory: one small entry per tenant seen. Thread-safe.
class LocalRateLimiter : public RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // Allow at the steady clock's now.
  bool Allow(const std::string& tenant, int per_minute, int* retry_after_s) override {
    return Allow(tenant, per_minute, retry_after_s, Clock::now());
  }
  // Allow as if it were `now` (tests pass their own times).
  bool Allow(const std::string& tenant, int per_minute, int* retry_after_s, Clock::time_point now);

 private:
  struct Bucket {
    double tokens;
    Clock::time_point last;
  };
  std::mutex mu_;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace coderunner::auth

#endif  // CODERUNNER_AUTH_RATE_LIMITER_H_
