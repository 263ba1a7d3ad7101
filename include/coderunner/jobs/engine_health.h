// EngineHealth: what this node's runs last learned of the engine.
#ifndef CODERUNNER_JOBS_ENGINE_HEALTH_H_
#define CODERUNNER_JOBS_ENGINE_HEALTH_H_

#include <chrono>
#include <mutex>
#include <optional>

#include "coderunner/common/status.h"

namespace coderunner::jobs {

// Each run that tries the engine says whether it reached it. While jobs
// wait for an engine that is down (they try again every few seconds), the
// failure stays fresh; once the engine answers a run, or nobody has tried
// for a while, the engine counts as up again. A synchronous caller asks it
// before it queues behind those jobs. Thread-safe.
class EngineHealth {
 public:
  using Clock = std::chrono::steady_clock;

  void Reached(Clock::time_point at = Clock::now());
  void Unreachable(const Status& why, Clock::time_point at = Clock::now());

  // The last failure to reach the engine if it came within `fresh` of
  // `now` and no run reached the engine since; nullopt otherwise.
  std::optional<Status> DownWithin(std::chrono::milliseconds fresh,
                                   Clock::time_point now = Clock::now()) const;

 private:
  mutable std::mutex mu_;
  std::optional<Status> failure_;  // Since the engine was last reached.
  Clock::time_point failed_at_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_ENGINE_HEALTH_H_
