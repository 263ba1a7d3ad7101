#include "coderunner/isolation/reuse_lot.h"

#include "coderunner/isolation/warm_pool.h"

namespace coderunner::isolation {

std::unique_ptr<PooledContainer> ReuseLot::Park(const std::string& scope, const std::string& key,
                                                std::unique_ptr<PooledContainer> c,
                                                Clock::time_point now) {
  if (!c || parked_ >= max_parked_ || scope.empty()) return c;
  lots_[{scope, key}].push_back({std::move(c), now});
  ++parked_;
  return nullptr;
}

std::unique_ptr<PooledContainer> ReuseLot::Take(const std::string& scope, const std::string& key,
                                                Containers& dead) {
  auto it = lots_.find({scope, key});
  if (it == lots_.end()) return nullptr;
  std::unique_ptr<PooledContainer> got;
  // The one parked last: its interpreter (if prestarted) is the freshest.
  while (!it->second.empty() && !got) {
    std::unique_ptr<PooledContainer> c = std::move(it->second.back().container);
    it->second.pop_back();
    --parked_;
    if (c->attach->done()) {
      dead.push_back(std::move(c));
    } else {
      got = std::move(c);
    }
  }
  if (it->second.empty()) lots_.erase(it);
  return got;
}

ReuseLot::Containers ReuseLot::Expire(Clock::time_point now) {
  Containers out;
  for (auto it = lots_.begin(); it != lots_.end();) {
    auto& q = it->second;
    for (auto p = q.begin(); p != q.end();) {
      if (now - p->since > max_wait_ || p->container->attach->done()) {
        out.push_back(std::move(p->container));
        p = q.erase(p);
        --parked_;
      } else {
        ++p;
      }
    }
    it = q.empty() ? lots_.erase(it) : std::next(it);
  }
  return out;
}

ReuseLot::Containers ReuseLot::TakeAll() {
  Containers out;
  for (auto& [key, q] : lots_) {
    for (auto& p : q) out.push_back(std::move(p.container));
  }
  lots_.clear();
  parked_ = 0;
  return out;
}

// The warm pool's side of container reuse (warm_pool.h).
std::unique_ptr<PooledContainer> WarmPool::TakeParkedLocked(const JobSpec& job,
                                                            const std::string& key) {
  ReuseLot::Containers dead;
  std::unique_ptr<PooledContainer> got = parked_.Take(job.reuse_scope, key, dead);
  for (auto& c : dead) retired_.push_back(std::move(c));
  if (!got) return nullptr;
  ++stats_.reused;
  if (metrics_ != nullptr) {
    metrics_->Increment("coderunner_pool_reused_total", {{"language", job.language.name}});
  }
  return got;
}

void WarmPool::Keep(const JobSpec& job, std::unique_ptr<PooledContainer> container) {
  if (!container) return;
  const std::string key = KeyOf(job);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reaped_ && !stopping_ && container->jobs_served < options_.reuse_max_jobs) {
      container = parked_.Park(job.reuse_scope, key, std::move(container), Clock::now());
      if (!container) return;
    }
  }
  Retire(std::move(container));
}

}  // namespace coderunner::isolation
