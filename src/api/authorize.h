// Authorize: the first step of every /v1 route.
#ifndef CODERUNNER_API_AUTHORIZE_H_
#define CODERUNNER_API_AUTHORIZE_H_

#include <memory>
#include <optional>
#include <string>

#include "coderunner/auth/authenticator.h"
#include "coderunner/auth/long_request_limiter.h"
#include "coderunner/auth/rate_limiter.h"
#include "coderunner/common/metrics.h"
#include "coderunner/common/status.h"
#include "http_reply.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace coderunner::api {

// The credentials a request presents: its Authorization header, else its
// X-API-Key (E2B) or X-Auth-Token (Judge0) header as "Bearer <key>".
std::string PresentedCredentials(const httplib::Request& req);

// The caller the request's credentials (PresentedCredentials) name; nullopt after a
// 401 with WWW-Authenticate was written to `res` by `write_error`.
// Thread-safe.
std::optional<auth::Principal> Authenticate(const httplib::Request& req, httplib::Response& res,
                                            const auth::Authenticator& authenticator,
                                            ErrorWriter write_error);

// Who is calling, once authenticated and within the tier's request rate;
// nullopt after an error answer (401 with WWW-Authenticate, or 429 with
// Retry-After) has been written to `res` by `write_error` (ReplyError, or
// a route family's own shape). `admitted`: the caller whose key was
// already checked for this request (RouteTable's Admission), taken as is;
// nullopt: the key is checked here (Authenticate). Either way the key is
// checked once per request. Thread-safe (the limiter and metrics are).
std::optional<auth::Principal> Authorize(const httplib::Request& req, httplib::Response& res,
                                         const std::optional<auth::Principal>& admitted,
                                         const auth::Authenticator& authenticator,
                                         auth::RateLimiter& limiter, MetricsRegistry& metrics,
                                         ErrorWriter write_error = ReplyError);

// One of `who`'s long-held request slots (auth::LongRequestLimit of its
// tier), held until the last copy of the pointer goes (capture it in a
// streaming response's provider to hold it while the stream lasts).
// Fails as ResourceExhausted auth::kTooManyLongRequests naming the limit
// (ReplyError answers it 429 with Retry-After: 2), counted in
// coderunner_jobs_rejected_total. Call it only for a request that will wait
// (a job that is not finished yet). Thread-safe.
StatusOr<std::shared_ptr<auth::LongRequestLimiter::Lease>> HoldLongRequest(
    const auth::Principal& who, auth::LongRequestLimiter& long_requests,
    const config::Config& config, MetricsRegistry& metrics);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_AUTHORIZE_H_
