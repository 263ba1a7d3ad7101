// Authorize: the first step of every /v1 route.
#ifndef CODERUNNER_API_AUTHORIZE_H_
#define CODERUNNER_API_AUTHORIZE_H_

#include <memory>
#include <optional>

#include "coderunner/auth/authenticator.h"
#include "coderunner/auth/long_request_limiter.h"
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

// One of `who`'s long-held request slots (auth::LongRequestLimit of its
// tier), held until the last copy of the pointer goes (capture it in a
// streaming response's provider to hold it while the stream lasts).
// nullptr after a 429 auth::kTooManyLongRequests answer, naming the limit,
// with Retry-After, has been written to `res`. Call it only for a request
// that will wait (a job that is not finished yet). Thread-safe.
std::shared_ptr<auth::LongRequestLimiter::Lease> HoldLongRequest(
    httplib::Response& res, const auth::Principal& who, auth::LongRequestLimiter& long_requests,
    const config::Config& config, MetricsRegistry& metrics);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_AUTHORIZE_H_
