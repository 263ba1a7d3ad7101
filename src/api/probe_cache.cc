#include "coderunner/api/probe_cache.h"

namespace coderunner::api {

ProbeAnswer ProbeCache::Get(const std::function<ProbeAnswer()>& compute) {
  if (ttl_.count() <= 0) return compute();
  const Clock::time_point asked = Clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  // An answer computed after this call began (another caller's, which this
  // one waited for) is as fresh as one this call would compute.
  if (answer_ && (computed_at_ >= asked || Clock::now() < computed_at_ + ttl_)) return *answer_;
  answer_ = compute();
  computed_at_ = Clock::now();
  return *answer_;
}

}  // namespace coderunner::api
