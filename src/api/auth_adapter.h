// AuthAdapter: wraps a route handler (route.h) once: authorize the caller
// (with the key RouteTable's admission already checked, if it did), call
// the handler, write its Answer or its error.
#ifndef CODERUNNER_API_AUTH_ADAPTER_H_
#define CODERUNNER_API_AUTH_ADAPTER_H_

#include <functional>
#include <memory>

#include "coderunner/api/route_table.h"
#include "coderunner/auth/authenticator.h"
#include "coderunner/auth/long_request_limiter.h"
#include "coderunner/auth/rate_limiter.h"
#include "coderunner/common/metrics.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "http_reply.h"
#include "route.h"

namespace coderunner::api {

// Everything the adapter uses, all owned by the caller (the Server) and
// outliving every handler it wraps.
struct AuthDeps {
  const auth::Authenticator* authenticator;
  auth::RateLimiter* limiter;
  auth::LongRequestLimiter* long_requests;
  const config::Config* config;
  MetricsRegistry* metrics;
};

// Cheap to copy (pointers and a function pointer); a wrapped handler holds
// a copy. Thread-safe: the wrapped handlers run on httplib's threads.
class AuthAdapter {
 public:
  // Errors are written by `write_error` (default ReplyError: our
  // {"error":{"code","message"}} envelope at HttpStatusFor's status).
  explicit AuthAdapter(AuthDeps deps, ErrorWriter write_error = ReplyError)
      : deps_(deps), write_error_(write_error) {}

  // The same adapter writing errors with `write_error` (Piston's shape).
  AuthAdapter WithErrors(ErrorWriter write_error) const { return AuthAdapter(deps_, write_error); }

  // Authorize (401 with WWW-Authenticate without a valid key; 429
  // rate_limited with Retry-After beyond the tier's requests_per_minute;
  // the handler is not called then), call `handler`, then write its Answer
  // (WriteAnswer) or its Status (the error writer). The caller RouteTable's
  // admission found (Admission::caller) is taken as is: the key is checked
  // once per request, there or here.
  AdmittedHandler Wrap(Handler handler) const;
  // The same for a handler that reads the body RouteTable parsed.
  AdmittedHandler WrapJson(JsonHandler handler) const;
  // A route that needs no key: calls `handler` and writes what it returns.
  httplib::Server::Handler Open(OpenHandler handler) const;

  // One of `who`'s long-request slots, for a handler about to wait (see
  // HoldLongRequest in authorize.h): fails as ResourceExhausted
  // auth::kTooManyLongRequests, which the handler returns (429 with
  // Retry-After: 2, before any waiting). Hold the pointer while waiting, or
  // capture it in a stream's provider.
  StatusOr<std::shared_ptr<auth::LongRequestLimiter::Lease>> HoldLongRequest(
      const auth::Principal& who) const;

 private:
  // Authorize (`admission`'s caller, or the request's key), then `call`
  // with the principal, then write its answer.
  void Serve(const httplib::Request& req, httplib::Response& res, const Admission& admission,
             const std::function<StatusOr<Answer>(const auth::Principal&)>& call) const;

  AuthDeps deps_;
  ErrorWriter write_error_;
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_AUTH_ADAPTER_H_
