#include "coderunner/api/authorize.h"

#include <httplib.h>

#include "coderunner/api/http_reply.h"

namespace coderunner::api {

std::optional<auth::Principal> Authorize(const httplib::Request& req, httplib::Response& res,
                                         const auth::Authenticator& authenticator,
                                         auth::RateLimiter& limiter, MetricsRegistry& metrics) {
  auto p = authenticator.Authenticate(req.get_header_value("Authorization"));
  if (!p.ok()) {
    res.set_header("WWW-Authenticate", "Bearer");
    ReplyError(res, p.status());
    return std::nullopt;
  }
  int retry_after = 1;
  int per_minute = p->tier != nullptr ? p->tier->requests_per_minute : 0;
  if (per_minute > 0 && !limiter.Allow(p->tenant, per_minute, &retry_after)) {
    metrics.Increment("coderunner_jobs_rejected_total", {{"reason", "rate_limited"}});
    ReplyError(res, ResourceExhaustedError("tier " + p->tier->name + " allows " +
                                               std::to_string(per_minute) +
                                               " requests per minute (requests_per_minute)",
                                           "rate_limited"));
    res.set_header("Retry-After", std::to_string(retry_after));
    return std::nullopt;
  }
  return *p;
}

}  // namespace coderunner::api
