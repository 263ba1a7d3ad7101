// RouteTable: registers routes on cpp-httplib and remembers each one, so the
// set of routes the server serves can be listed (GET /openapi.json is
// checked against it). It is also the one place where request bodies enter:
// every route that can carry a body has it parsed with bounds before its
// handler runs, so that no route, present or future, meets unbounded JSON.
#ifndef CODERUNNER_API_ROUTE_TABLE_H_
#define CODERUNNER_API_ROUTE_TABLE_H_

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/auth/authenticator.h"
#include "coderunner/common/bounded_json.h"
#include "coderunner/common/status.h"

namespace coderunner::api {

// One registered route.
struct Route {
  std::string method;   // "GET", "POST", "DELETE".
  std::string pattern;  // As given to httplib, e.g. "/v1/jobs/(job-[0-9a-f]{24})".
  std::string path;     // As an OpenAPI template, e.g. "/v1/jobs/{id}".
  bool body = false;    // May carry a body (POST, DELETE), checked before the handler.
};

// The OpenAPI path template of an httplib pattern: a capture group matching
// anything ("(.+)" or "(.*)") becomes {path}, any other group {id}.
std::string OpenApiPath(const std::string& pattern);

// What the route table learned of a request before its handler runs,
// handed to the handler so that nothing checked there is checked again.
struct Admission {
  // The caller whose API key BodyPolicy::admit checked; nullopt when admit
  // did not run (a GET, an empty body) or named no caller. A handler that
  // authorizes takes it instead of authenticating the request once more.
  std::optional<auth::Principal> caller;
};

// How request bodies are checked before a handler sees them.
struct BodyPolicy {
  // Depth and size bounds (server.max_json_depth, server.max_body_bytes).
  JsonBounds bounds;
  // Answers a refused body with `status` (InvalidArgument: kInvalidJson,
  // kJsonTooDeep or kJsonTooLarge), in the error shape of the request's
  // path. Must be set.
  std::function<void(const httplib::Request&, httplib::Response&, const Status&)> reply_error;
  // Runs before a non-empty body is parsed: false after it answered the
  // request itself (the Server's refuses a caller without a valid API key,
  // 401, so that only a known caller makes the service parse a body). It
  // may record the caller it found in `admission`, which the handler gets.
  // Unset: every body is parsed.
  std::function<bool(const httplib::Request&, httplib::Response&, Admission& admission)> admit;
};

// A handler of a body route that takes the parsed body: null when the
// request had none, else the value ParseBoundedJson gave.
using BodyHandler =
    std::function<void(const httplib::Request&, httplib::Response&, const nlohmann::json& body)>;
// A handler of any route that also takes what admission learned: for a GET,
// or a request without a body, a null body and an empty Admission.
using AdmittedHandler = std::function<void(const httplib::Request&, httplib::Response&,
                                           const nlohmann::json& body, const Admission& admission)>;

// `handler` for a request nothing admitted (a GET): called with a null body
// and an empty Admission.
httplib::Server::Handler WithoutAdmission(AdmittedHandler handler);

// Forwards registrations to `http` (which must outlive it) and records the
// route. POST and DELETE routes (the methods httplib reads a body for) are
// wrapped: a non-empty body goes through `policy.admit`, then is parsed
// with `policy.bounds`, and one
// that is not UTF-8 JSON within them is answered by `policy.reply_error`
// (400; 413 for kJsonTooLarge) without running the handler; an
// AdmittedHandler gets the parsed body and what `policy.admit` recorded.
// GET carries no body (httplib reads none). A route whose body is not JSON needs a
// registration of its own here, never httplib directly. Not thread-safe:
// register everything before serving; the wrapped handlers are thread-safe.
class RouteTable {
 public:
  RouteTable(httplib::Server& http, BodyPolicy policy);

  RouteTable& Get(const std::string& pattern, httplib::Server::Handler handler);
  RouteTable& Get(const std::string& pattern, AdmittedHandler handler);
  // The handler reads the checked body from req.body (or ignores it).
  RouteTable& Post(const std::string& pattern, httplib::Server::Handler handler);
  RouteTable& Post(const std::string& pattern, BodyHandler handler);
  RouteTable& Post(const std::string& pattern, AdmittedHandler handler);
  // A POST whose body is not JSON (E2B's Connect envelopes, multipart and
  // raw uploads): httplib bounds its size (server.max_body_bytes); nothing
  // else is checked before `handler`, which must authenticate the caller
  // before it parses anything, and parse with bounds.
  RouteTable& PostRaw(const std::string& pattern, httplib::Server::Handler handler);
  // A DELETE that PostRaw's rules hold for (E2B's code contexts, whose
  // caller proves itself with a sandbox's token, not an API key).
  RouteTable& DeleteRaw(const std::string& pattern, httplib::Server::Handler handler);
  RouteTable& Delete(const std::string& pattern, httplib::Server::Handler handler);
  RouteTable& Delete(const std::string& pattern, BodyHandler handler);
  RouteTable& Delete(const std::string& pattern, AdmittedHandler handler);

  // Every route registered so far, in registration order.
  const std::vector<Route>& routes() const { return routes_; }

 private:
  httplib::Server::Handler CheckBody(AdmittedHandler handler) const;
  void Record(const char* method, const std::string& pattern, bool body);

  httplib::Server& http_;
  BodyPolicy policy_;
  std::vector<Route> routes_;
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_ROUTE_TABLE_H_
