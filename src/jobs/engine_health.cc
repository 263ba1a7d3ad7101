#include "coderunner/jobs/engine_health.h"

namespace coderunner::jobs {

void EngineHealth::Reached(Clock::time_point at) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failure_ && at >= failed_at_) failure_.reset();
}

void EngineHealth::Unreachable(const Status& why, Clock::time_point at) {
  std::lock_guard<std::mutex> lock(mu_);
  failure_ = why;
  failed_at_ = at;
}

std::optional<Status> EngineHealth::DownWithin(std::chrono::milliseconds fresh,
                                               Clock::time_point now) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!failure_ || now - failed_at_ > fresh) return std::nullopt;
  return failure_;
}

}  // namespace coderunner::jobs
