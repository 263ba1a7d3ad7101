#include "coderunner/auth/long_request_limiter.h"

#include <algorithm>

namespace coderunner::auth {
namespace {

constexpr const char* kGauge = "coderunner_long_requests";

}  // namespace

int LongRequestLimit(const config::Config& config, const config::TierConfig* tier) {
  if (tier != nullptr && tier->max_long_requests > 0) return tier->max_long_requests;
  if (config.server.long_requests_per_tenant > 0) return config.server.long_requests_per_tenant;
  // As many as it may queue jobs: a harness waits on each job it submits.
  return std::max(1, tier != nullptr ? tier->max_queued : config.jobs.max_queued);
}

int TotalLongRequestLimit(const config::Config& config) {
  return std::max(1, config.server.max_threads - config.server.threads);
}

LongRequestLimiter::LongRequestLimiter(MetricsRegistry* metrics, int total_limit)
    : metrics_(metrics), total_limit_(total_limit) {
  if (metrics_ != nullptr) {
    metrics_->DeclareGauge(kGauge,
                           "Long-held requests (execute, wait, events) being served, all tenants");
    metrics_->Set(kGauge, {}, 0);
  }
}

LongRequestLimiter::Lease::Lease(Lease&& other) noexcept
    : owner_(other.owner_), tenant_(std::move(other.tenant_)) {
  other.owner_ = nullptr;
}

LongRequestLimiter::Lease::~Lease() {
  if (owner_ != nullptr) owner_->Release(tenant_);
}

std::unique_ptr<LongRequestLimiter::Lease> LongRequestLimiter::TryAcquire(const std::string& tenant,
                                                                          int limit) {
  std::lock_guard<std::mutex> lock(mu_);
  if (total_limit_ > 0 && total_ >= total_limit_) return nullptr;
  auto it = held_.find(tenant);
  if (it != held_.end() && it->second >= std::max(1, limit)) return nullptr;
  ++held_[tenant];
  ++total_;
  PublishLocked();
  return std::unique_ptr<Lease>(new Lease(this, tenant));
}

int LongRequestLimiter::held(const std::string& tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(tenant);
  return it == held_.end() ? 0 : it->second;
}

int LongRequestLimiter::total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

void LongRequestLimiter::Release(const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(tenant);
  if (it == held_.end()) return;
  if (--it->second <= 0) held_.erase(it);
  --total_;
  PublishLocked();
}

void LongRequestLimiter::PublishLocked() {
  if (metrics_ != nullptr) metrics_->Set(kGauge, {}, total_);
}

}  // namespace coderunner::auth
