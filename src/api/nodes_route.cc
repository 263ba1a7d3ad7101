#include "nodes_route.h"

#include <httplib.h>

#include <chrono>
#include <utility>

#include "coderunner/common/wall_clock.h"
#include "coderunner/wire/job_json.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

}  // namespace

json NodesJson(const std::vector<store::NodeInfo>& nodes, int64_t now_ms) {
  constexpr int64_t kAliveMs = store::kNodeAliveHeartbeats * store::kNodeHeartbeatPeriodMs;
  json out = json::array();
  for (const store::NodeInfo& n : nodes) {
    const int64_t age_ms = now_ms > n.last_heartbeat_ms ? now_ms - n.last_heartbeat_ms : 0;
    out.push_back({{"id", n.id},
                   {"url", n.advertised_url},
                   {"engine", n.engine},
                   {"runtime", n.runtime},
                   {"capacity", n.capacity},
                   {"running", n.running},
                   {"version", n.version},
                   {"started_at", wire::Rfc3339(n.started_at_ms)},
                   {"last_heartbeat", wire::Rfc3339(n.last_heartbeat_ms)},
                   {"age_ms", age_ms},
                   {"alive", age_ms < kAliveMs}});
  }
  return {{"nodes", std::move(out)}};
}

httplib::Server::Handler NodesHandler(store::NodeRegistry* registry, const AuthAdapter& auth,
                                      WallClock now) {
  if (!now) now = WallClockMs;
  // A GET: no body, so nothing was admitted; the key is checked here.
  return WithoutAdmission(
      auth.Wrap([registry, now = std::move(now)](const auth::Principal& p,
                                                 const httplib::Request&) -> StatusOr<Answer> {
        if (!p.admin) {
          return FailedPreconditionError(
              "GET /v1/nodes needs an admin key (auth.keys[].admin: true)", auth::kReasonForbidden);
        }
        if (registry == nullptr) {
          return UnavailableError("this server has no node registry", kReasonNoNodeRegistry);
        }
        CR_ASSIGN_OR_RETURN(std::vector<store::NodeInfo> nodes, registry->List());
        return Answer::Json(200, NodesJson(nodes, now()));
      }));
}

void RegisterNodesRoute(RouteTable& http, store::NodeRegistry* registry, const AuthAdapter& auth) {
  http.Get(kNodesPath, NodesHandler(registry, auth));
}

}  // namespace coderunner::api
