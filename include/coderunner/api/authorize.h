// Authorize: the first step of every /v1 route.
#ifndef CODERUNNER_API_AUTHORIZE_H_
#define CODERUNNER_API_AUTHORIZE_H_

#include <optional>

#include "coderunner/auth/authenticator.h"
#include "coderunner/auth/rate_limiter.h"
#include "coderunner/common/metrics.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace coderunner::api {

// Who is calling, once authenticated and within the tier's request rate;
// nullopt after an error answer (401, or 429 with Retry-After) has been
// written to `res`. Thread-safe (the limiter and metrics are).
std::optional<auth::Principal> Authorize(const httplib::Request& req, httplib::Response& res,
                                         const auth::Authenticator& authenticator,
                                         auth::RateLimiter& limiter, MetricsRegistry& metrics);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_AUTHORIZE_H_
