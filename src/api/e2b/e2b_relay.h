// A fleet's E2B surface: a request on a sandbox that another node of the
// fleet holds goes to that node (OwnerForwarder::ForSandboxStream), and its
// answer streams back as the owner sends it: a process's events, a code
// execution's lines, a file. With no forwarder (one node) every route is
// served here, unchanged. Private to src/api.
#ifndef CODERUNNER_API_E2B_E2B_RELAY_H_
#define CODERUNNER_API_E2B_E2B_RELAY_H_

#include <httplib.h>

#include <functional>
#include <string>

#include "coderunner/api/route_table.h"
#include "coderunner/common/status.h"
#include "e2b/e2b_routes.h"
#include "route.h"

namespace coderunner::api::e2b {

// The caller's headers an E2B request takes to the owner (besides
// Authorization and Content-Type): the key, the sandbox's token, the
// sandbox it names, and the Connect protocol's own.
inline constexpr const char* kE2bRelayedHeaders[] = {
    "X-API-Key",        "X-Access-Token",     "E2B-Traffic-Access-Token", "E2b-Sandbox-Id",
    "E2b-Sandbox-Port", "Connect-Timeout-Ms", "Connect-Protocol-Version"};
// The query parameters an E2B request takes to the owner (/files').
inline constexpr const char* kE2bRelayedParams[] = {"path", "username"};

// How a route answers an error, in its protocol's shape.
using ErrorReply = std::function<void(httplib::Response&, const Status&)>;

// Registers the routes of calls into a sandbox, which name it in
// E2b-Sandbox-Id and prove the right to it with its token (e2b_envd.h):
// one whose sandbox another node holds goes to that node, and the token is
// checked there; an error of the relay itself (the owner gone: NotFound
// kReasonStateLost; a relay cut) is answered with the route's
// `reply_error`. Everything in `deps` outlives `http`.
class EnvdRoutes {
 public:
  EnvdRoutes(RouteTable& http, const E2bDeps& deps) : http_(http), deps_(deps) {}

  void Get(const std::string& pattern, httplib::Server::Handler handler, ErrorReply reply_error);
  void PostRaw(const std::string& pattern, httplib::Server::Handler handler,
               ErrorReply reply_error);
  void DeleteRaw(const std::string& pattern, httplib::Server::Handler handler,
                 ErrorReply reply_error);

 private:
  httplib::Server::Handler Relayed(const std::string& pattern, httplib::Server::Handler handler,
                                   ErrorReply reply_error) const;

  RouteTable& http_;
  const E2bDeps deps_;
};

// A control-plane route on one sandbox (its id in req.matches[1]; the
// caller's tenant known from X-API-Key): `handler` when the sandbox is
// held here, else the owner's answer to the request at `pattern`. A DELETE
// of a sandbox whose node is gone forgets its placement.
Handler OwnedByTenant(const E2bDeps& deps, const std::string& pattern, Handler handler);
JsonHandler OwnedByTenant(const E2bDeps& deps, const std::string& pattern, JsonHandler handler);

}  // namespace coderunner::api::e2b

#endif  // CODERUNNER_API_E2B_E2B_RELAY_H_
