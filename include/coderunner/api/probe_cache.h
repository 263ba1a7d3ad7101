// ProbeCache: the answer of a route that asks the engine or the store and
// needs no key (GET /readyz, GET /v1/languages), computed off the request
// path, so that neither a flood of anonymous requests nor an engine that
// stalls can hold the service's HTTP threads.
#ifndef CODERUNNER_API_PROBE_CACHE_H_
#define CODERUNNER_API_PROBE_CACHE_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace coderunner::api {

// An HTTP answer: status code and JSON body text.
struct ProbeAnswer {
  int status = 200;
  std::string body;
};

// Holds the last answer for `ttl`. A caller that finds none that fresh asks
// the cache's own thread for one and waits for it, at most `wait_bound`
// from when that computation began: a computation already overdue (the
// engine stalls) is not waited for at all, and the caller gets `overdue`.
// Single flight: one computation at a time, its answer shared by every
// caller waiting for it, so at most one runs per period however many
// requests arrive. Failures are kept too (an engine that is down is asked
// again only after `ttl`). Thread-safe.
class ProbeCache {
 public:
  using Clock = std::chrono::steady_clock;
  using Compute = std::function<ProbeAnswer()>;

  // `ttl` 0: each call waits for a computation that was under way or began
  // after it was made (none is kept for later calls).
  ProbeCache(std::chrono::milliseconds ttl, std::chrono::milliseconds wait_bound, Compute compute,
             ProbeAnswer overdue);
  // Waits for a computation under way (as long as the engine call takes).
  ~ProbeCache();
  ProbeCache(const ProbeCache&) = delete;
  ProbeCache& operator=(const ProbeCache&) = delete;

  ProbeAnswer Get();

  // Computations begun so far.
  int computations() const;

 private:
  void Loop();

  const std::chrono::milliseconds ttl_;
  const std::chrono::milliseconds wait_bound_;
  const Compute compute_;
  const ProbeAnswer overdue_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<ProbeAnswer> answer_;
  Clock::time_point computed_at_;
  bool wanted_ = false;     // A caller asked; the thread has not begun yet.
  bool computing_ = false;  // Asked for and not finished.
  Clock::time_point asked_at_;
  int computations_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // Started by the first Get.
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_PROBE_CACHE_H_
