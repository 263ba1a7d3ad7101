// RateLimiter: requests per minute per tenant (token bucket).
#ifndef CODERUNNER_AUTH_RATE_LIMITER_H_
#define CODERUNNER_AUTH_RATE_LIMITER_H_

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace coderunner::auth {

// Each tenant has a bucket of `per_minute` tokens refilled continuously at
// per_minute/60 per second; a request takes one. Memory: one small entry per
// tenant seen. Thread-safe.
class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // True if the request may proceed. Otherwise false and `retry_after_s`
  // says when one token will be back (at least 1).
  bool Allow(const std::string& tenant, int per_minute, int* retry_after_s,
             Clock::time_point now = Clock::now());

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
