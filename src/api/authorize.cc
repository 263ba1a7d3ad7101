#include "authorize.h"

#include <httplib.h>

#include <utility>

#include "http_reply.h"

namespace coderunner::api {

std::string PresentedCredentials(const httplib::Request& req) {
  std::string authorization = req.get_header_value("Authorization");
  if (!authorization.empty()) return authorization;
  // E2B's SDKs send X-API-Key, Judge0's clients X-Auth-Token.
  for (const char* header : {"X-API-Key", "X-Auth-Token"}) {
    std::string key = req.get_header_value(header);
    if (!key.empty()) return "Bearer " + key;
  }
  return std::string();
}

std::optional<auth::Principal> Authenticate(const httplib::Request& req, httplib::Response& res,
                                            const auth::Authenticator& authenticator,
                                            ErrorWriter write_error) {
  auto p = authenticator.Authenticate(PresentedCredentials(req));
  if (p.ok()) return std::move(*p);
  res.set_header("WWW-Authenticate", "Bearer");
  write_error(res, p.status());
  return std::nullopt;
}

std::optional<auth::Principal> Authorize(const httplib::Request& req, httplib::Response& res,
                                         const std::optional<auth::Principal>& admitted,
                                         const auth::Authenticator& authenticator,
                                         auth::RateLimiter& limiter, MetricsRegistry& metrics,
                                         ErrorWriter write_error) {
  std::optional<auth::Principal> p =
      admitted ? admitted : Authenticate(req, res, authenticator, write_error);
  if (!p) return std::nullopt;
  int retry_after = 1;
  int per_minute = p->tier != nullptr ? p->tier->requests_per_minute : 0;
  if (per_minute > 0 && !limiter.Allow(p->tenant, per_minute, &retry_after)) {
    metrics.Increment("coderunner_jobs_rejected_total", {{"reason", "rate_limited"}});
    write_error(res, ResourceExhaustedError("tier " + p->tier->name + " allows " +
                                                std::to_string(per_minute) +
                                                " requests per minute (requests_per_minute)",
                                            "rate_limited"));
    res.set_header("Retry-After", std::to_string(retry_after));
    return std::nullopt;
  }
  return *p;
}

StatusOr<std::shared_ptr<auth::LongRequestLimiter::Lease>> HoldLongRequest(
    const auth::Principal& who, auth::LongRequestLimiter& long_requests,
    const config::Config& config, MetricsRegistry& metrics) {
  int limit = auth::LongRequestLimit(config, who.tier);
  std::shared_ptr<auth::LongRequestLimiter::Lease> lease =
      long_requests.TryAcquire(who.tenant, limit);
  if (lease) return lease;
  metrics.Increment("coderunner_jobs_rejected_total", {{"reason", auth::kTooManyLongRequests}});
  std::string source = who.tier != nullptr && who.tier->max_long_requests > 0
                           ? "tier " + who.tier->name + "'s max_long_requests"
                           : "server.long_requests_per_tenant";
  return ResourceExhaustedError(
      "tenant " + who.tenant + " already holds " + std::to_string(limit) +
          " long requests (/v1/execute, /wait, /events and other calls that "
          "wait for a job) at once, the most allowed (" +
          source +
          "); wait for one to end, or submit with POST /v1/jobs and poll "
          "GET /v1/jobs/{id}",
      auth::kTooManyLongRequests);
}

}  // namespace coderunner::api
