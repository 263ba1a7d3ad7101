// LongRequestLimiter: how many long-held requests one tenant may hold at
// once.
//
// A long-held request (POST /v1/execute, GET /v1/jobs/{id}/wait, GET
// /v1/jobs/{id}/events, a sandbox call, Piston's execute) keeps an HTTP
// thread for as long as the job or the wait lasts. The pool grows for
// them (api/elastic_pool.h) up to server.max_threads, so each tenant may
// hold as many as it may queue jobs, and all together hold at most
// max_threads - threads: the `threads` kept serve every other request. The
// next one beyond either is refused (429) instead of waiting for a thread.
#ifndef CODERUNNER_AUTH_LONG_REQUEST_LIMITER_H_
#define CODERUNNER_AUTH_LONG_REQUEST_LIMITER_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "coderunner/common/metrics.h"
#include "coderunner/config/config.h"

namespace coderunner::auth {

// The reason of the 429 a tenant gets beyond its limit.
inline constexpr const char* kTooManyLongRequests = "too_many_long_requests";

// The long-held requests one tenant of `tier` (nullable) may hold at once:
// tier->max_long_requests when set (> 0), else
// config.server.long_requests_per_tenant when set (> 0), else as many as
// it may queue jobs (tier->max_queued, else jobs.max_queued; at least 1).
// Count. Pure.
int LongRequestLimit(const config::Config& config, const config::TierConfig* tier);

// The long-held requests all tenants together may hold: server.max_threads
// - server.threads (at least 1). Count. Pure.
int TotalLongRequestLimit(const config::Config& config);

// Counts each tenant's held requests. Memory: one entry per tenant holding
// any. Thread-safe.
class LongRequestLimiter {
 public:
  // `metrics` (nullable, must outlive the limiter) gets the gauge
  // coderunner_long_requests (requests held now, all tenants).
  // `total_limit`: requests all tenants may hold together (0: no bound).
  explicit LongRequestLimiter(MetricsRegistry* metrics = nullptr, int total_limit = 0);

  // One held request; releases its slot when destroyed. Move-only; must
  // not outlive the limiter.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

   private:
    friend class LongRequestLimiter;
    Lease(LongRequestLimiter* owner, std::string tenant)
        : owner_(owner), tenant_(std::move(tenant)) {}
    LongRequestLimiter* owner_;
    std::string tenant_;
  };

  // A slot for `tenant` if it holds fewer than `limit` (>= 1) requests and
  // all hold fewer than the total limit; nullptr otherwise (the caller
  // answers 429).
  std::unique_ptr<Lease> TryAcquire(const std::string& tenant, int limit);

  // Requests `tenant` holds now; all tenants' together. For tests and
  // metrics.
  int held(const std::string& tenant) const;
  int total() const;

 private:
  void Release(const std::string& tenant);
  void PublishLocked();  // Requires mu_.

  MetricsRegistry* metrics_;
  const int total_limit_;
  mutable std::mutex mu_;
  std::map<std::string, int> held_;  // Only tenants holding at least one.
  int total_ = 0;
};

}  // namespace coderunner::auth

#endif  // CODERUNNER_AUTH_LONG_REQUEST_LIMITER_H_
