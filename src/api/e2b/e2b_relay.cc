#include "e2b/e2b_relay.h"

#include <utility>
#include <vector>

#include "owner_forwarder.h"
#include "relay_path.h"

namespace coderunner::api::e2b {
namespace {

// The owner's path for `req` as the route of `pattern` matched it.
StatusOr<std::string> RelayPathOf(const std::string& pattern, const httplib::Request& req) {
  std::vector<std::string> groups;
  for (size_t i = 1; i < req.matches.size(); ++i) groups.push_back(req.matches[i]);
  std::vector<std::pair<std::string, std::string>> query;
  for (const char* name : kE2bRelayedParams) {
    if (req.has_param(name)) query.emplace_back(name, req.get_param_value(name));
  }
  return PatternRelayPath(pattern, groups, query);
}

// Whether this node holds sandbox `id` (in any state).
bool HeldHere(const E2bDeps& deps, const std::string& tenant, const std::string& id) {
  const Status held = tenant.empty() ? deps.sandboxes->Lookup(id).status()
                                     : deps.sandboxes->Get(tenant, id).status();
  return held.code() != StatusCode::kNotFound;
}

// The owner's answer to `req` on sandbox `id`, or nullopt to serve it here.
StatusOr<std::optional<Answer>> ToOwner(const E2bDeps& deps, const std::string& tenant,
                                        const std::string& id, const std::string& pattern,
                                        const httplib::Request& req) {
  if (deps.forwarder == nullptr || id.empty()) return std::optional<Answer>();
  return deps.forwarder->ForSandboxStream(tenant, id, HeldHere(deps, tenant, id),
                                          RelayPathOf(pattern, req), kE2bRelayedHeaders, req);
}

// ToOwner for the control plane; a DELETE that found the node gone forgets
// the placement.
StatusOr<std::optional<Answer>> ControlToOwner(const E2bDeps& deps, const auth::Principal& who,
                                               const std::string& pattern,
                                               const httplib::Request& req) {
  const std::string id = req.matches[1];
  StatusOr<std::optional<Answer>> relayed = ToOwner(deps, who.tenant, id, pattern, req);
  if (!relayed.ok() && relayed.status().reason() == kReasonStateLost && req.method == "DELETE") {
    CR_RETURN_IF_ERROR(deps.forwarder->Forget(id));
  }
  return relayed;
}

}  // namespace

httplib::Server::Handler EnvdRoutes::Relayed(const std::string& pattern,
                                             httplib::Server::Handler handler,
                                             ErrorReply reply_error) const {
  if (deps_.forwarder == nullptr) return handler;
  return
      [deps = deps_, pattern, handler = std::move(handler), reply_error = std::move(reply_error)](
          const httplib::Request& req, httplib::Response& res) {
        auto relayed = ToOwner(deps, "", req.get_header_value("E2b-Sandbox-Id"), pattern, req);
        if (!relayed.ok()) return reply_error(res, relayed.status());
        if (!*relayed) return handler(req, res);
        WriteAnswer(res, std::move(**relayed));
      };
}

void EnvdRoutes::Get(const std::string& pattern, httplib::Server::Handler handler,
                     ErrorReply reply_error) {
  http_.Get(pattern, Relayed(pattern, std::move(handler), std::move(reply_error)));
}

void EnvdRoutes::PostRaw(const std::string& pattern, httplib::Server::Handler handler,
                         ErrorReply reply_error) {
  http_.PostRaw(pattern, Relayed(pattern, std::move(handler), std::move(reply_error)));
}

void EnvdRoutes::DeleteRaw(const std::string& pattern, httplib::Server::Handler handler,
                           ErrorReply reply_error) {
  http_.DeleteRaw(pattern, Relayed(pattern, std::move(handler), std::move(reply_error)));
}

Handler OwnedByTenant(const E2bDeps& deps, const std::string& pattern, Handler handler) {
  if (deps.forwarder == nullptr) return handler;
  return [deps, pattern, handler = std::move(handler)](
             const auth::Principal& who, const httplib::Request& req) -> StatusOr<Answer> {
    CR_ASSIGN_OR_RETURN(std::optional<Answer> relayed, ControlToOwner(deps, who, pattern, req));
    if (relayed) return std::move(*relayed);
    return handler(who, req);
  };
}

JsonHandler OwnedByTenant(const E2bDeps& deps, const std::string& pattern, JsonHandler handler) {
  if (deps.forwarder == nullptr) return handler;
  return [deps, pattern, handler = std::move(handler)](
             const auth::Principal& who, const httplib::Request& req,
             const nlohmann::json& body) -> StatusOr<Answer> {
    CR_ASSIGN_OR_RETURN(std::optional<Answer> relayed, ControlToOwner(deps, who, pattern, req));
    if (relayed) return std::move(*relayed);
    return handler(who, req, body);
  };
}

}  // namespace coderunner::api::e2b
