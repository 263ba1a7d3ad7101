// ProbeCache: a short-lived copy of the answer of a route that asks the
// engine and needs no key (GET /readyz, GET /v1/languages), so that a flood
// of anonymous requests makes at most one engine check per period.
#ifndef CODERUNNER_API_PROBE_CACHE_H_
#define CODERUNNER_API_PROBE_CACHE_H_

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

namespace coderunner::api {

// An HTTP answer: status code and JSON body text.
struct ProbeAnswer {
  int status = 200;
  std::string body;
};

// Holds the last answer for `ttl`. Single flight: while one caller computes
// an answer, the others wait for it and share it, so at most one
// computation runs per period however many requests arrive at once.
// Failures are kept too (an engine that is down is asked again only after
// `ttl`). Thread-safe.
class ProbeCache {
 public:
  using Clock = std::chrono::steady_clock;

  // `ttl` 0: every call computes (no caching, calls not serialized).
  explicit ProbeCache(std::chrono::milliseconds ttl) : ttl_(ttl) {}

  // The answer from within the last `ttl` (measured from when it was
  // computed), or `compute`'s answer, kept. `compute` runs on the calling
  // thread, with no other computation of this cache running; it must not
  // call Get on the same cache.
  ProbeAnswer Get(const std::function<ProbeAnswer()>& compute);

 private:
  const std::chrono::milliseconds ttl_;
  std::mutex mu_;  // Held across a computation (the single flight).
  std::optional<ProbeAnswer> answer_;
  Clock::time_point computed_at_;
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_PROBE_CACHE_H_
