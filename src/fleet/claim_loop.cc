#include "claim_loop.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <utility>

#include "coderunner/jobs/job_clock.h"

namespace coderunner::fleet {

std::string LeaseExpiredResultJson() {
  return nlohmann::json{
      {"status", "error"},
      {"cached", false},
      {"error",
       {{"code", "interrupted"},
        {"message", "the nodes running this job stopped renewing its lease on every attempt"}}}}
      .dump();
}

ClaimLoop::ClaimLoop(ClaimLoopDeps deps) : deps_(std::move(deps)) {}

ClaimLoop::~ClaimLoop() { Stop(); }

void ClaimLoop::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { Loop(); });
}

void ClaimLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ClaimLoop::Kick() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    kicked_ = true;
  }
  cv_.notify_all();
}

void ClaimLoop::Release(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (held_.erase(id) == 0) return;
    kicked_ = true;
  }
  cv_.notify_all();
}

std::vector<std::string> ClaimLoop::Held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {held_.begin(), held_.end()};
}

void ClaimLoop::Loop() {
  const auto period =
      std::chrono::milliseconds(std::max<int64_t>(1, deps_.config->store.lease_ms / 3));
  auto next_keep = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    kicked_ = false;
    lock.unlock();
    if (std::chrono::steady_clock::now() >= next_keep) {
      KeepLeases(jobs::NowMs());
      next_keep = std::chrono::steady_clock::now() + period;
    }
    ClaimFree(jobs::NowMs());
    lock.lock();
    cv_.wait_until(lock, next_keep, [&] { return kicked_ || stopping_; });
  }
}

int ClaimLoop::ClaimFree(int64_t now_ms) {
  int free = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return 0;
    free = deps_.slots - static_cast<int>(held_.size());
  }
  if (free <= 0) return 0;
  auto claimed = deps_.store->Claim(deps_.node, std::min(free, store::kMaxClaimJobs), now_ms,
                                    deps_.config->store.lease_ms);
  if (!claimed.ok()) {
    spdlog::warn("claim: {}", claimed.status().ToString());
    return 0;
  }
  for (const store::JobRecord& rec : *claimed) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      held_.insert(rec.id);
    }
    // Submitted on another node (or recovered): its waiters here, if any
    // come, find its channel.
    if (!deps_.hub->Find(rec.id)) deps_.hub->Open(rec.id, deps_.config->max_limits.output_bytes);
    const config::TierConfig* tier = deps_.config->TierOfTenant(rec.tenant);
    deps_.queue->PushForce(rec.tenant, rec.id, tier != nullptr ? tier->max_concurrent : 0);
  }
  return static_cast<int>(claimed->size());
}

void ClaimLoop::KeepLeases(int64_t now_ms) {
  std::vector<std::string> ids = Held();
  if (!ids.empty()) {
    auto renewed = deps_.store->RenewLeases(deps_.node, ids, now_ms, deps_.config->store.lease_ms);
    if (!renewed.ok()) {
      spdlog::warn("lease renewal: {}", renewed.status().ToString());
    } else {
      std::set<std::string> kept(renewed->begin(), renewed->end());
      for (const auto& id : ids) {
        if (kept.count(id) == 0) Lost(id);
      }
    }
  }
  Sweep(now_ms);
}

void ClaimLoop::Lost(const std::string& id) {
  spdlog::warn("job {}: lease lost (requeued, ended or cancelled elsewhere); stopped here", id);
  const bool running = deps_.executor->Active().count(id) > 0;
  if (!running) {
    deps_.queue->Remove(id);
    Release(id);  // A running one is released when its worker is done.
    return;
  }
  if (auto ch = deps_.hub->Find(id)) ch->cancel_token().Cancel();
}

void ClaimLoop::Sweep(int64_t now_ms) {
  auto expired = deps_.store->RequeueExpired(now_ms, deps_.config->store.max_attempts,
                                             LeaseExpiredResultJson());
  if (!expired.ok()) {
    spdlog::warn("requeue of expired leases: {}", expired.status().ToString());
    return;
  }
  for (const auto& id : expired->requeued) {
    spdlog::info("job {}: its node stopped renewing the lease; requeued", id);
  }
  if (!expired->requeued.empty()) Publish(store::JobNotice::Kind::kQueued, "");
  for (const auto& id : expired->ended) {
    spdlog::warn("job {}: its node stopped renewing the lease on its last attempt; error", id);
    Publish(store::JobNotice::Kind::kChanged, id);
  }
}

void ClaimLoop::Publish(store::JobNotice::Kind kind, const std::string& id) const {
  if (deps_.notices == nullptr) return;
  Status s = deps_.notices->Publish(store::JobNotice{kind, id});
  if (!s.ok()) spdlog::warn("cannot tell the fleet: {}", s.ToString());
}

}  // namespace coderunner::fleet
