// GET /v1/nodes: the fleet's node registry, for an admin key only.
#ifndef CODERUNNER_API_NODES_ROUTE_H_
#define CODERUNNER_API_NODES_ROUTE_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/store/node_registry.h"

namespace coderunner::api {

// GET /v1/nodes's path.
inline constexpr char kNodesPath[] = "/v1/nodes";

// The 503 of GET /v1/nodes when the server has no node registry.
inline constexpr const char* kReasonNoNodeRegistry = "node_registry_unavailable";

// Milliseconds since the epoch, now (the wall clock by default).
using WallClock = std::function<int64_t()>;

// The GET /v1/nodes body for `nodes` (in the order given) seen at
// `now_ms`: {"nodes":[{"id","url","engine","runtime","capacity",
// "running","version","started_at","last_heartbeat","age_ms","alive"}]},
// times as RFC 3339 (wire::Rfc3339), age_ms = now_ms - last_heartbeat_ms
// (at least 0) and alive = age_ms < kNodeAliveHeartbeats *
// kNodeHeartbeatPeriodMs. Pure; thread-safe.
nlohmann::json NodesJson(const std::vector<store::NodeInfo>& nodes, int64_t now_ms);

// The GET /v1/nodes handler, wrapped by `auth`: a caller whose principal
// is not admin gets 403 ("forbidden") before the registry is read; without
// a key, 401 as every /v1 route. Answers 200 NodesJson(registry->List(),
// now()), the registry's failure as its error (503 when unreachable), or
// 503 kReasonNoNodeRegistry when `registry` is null. `registry` (may be
// null) must outlive the handler. Thread-safe.
httplib::Server::Handler NodesHandler(store::NodeRegistry* registry, const AuthAdapter& auth,
                                      WallClock now = nullptr);

// Registers GET kNodesPath with NodesHandler on `http`.
void RegisterNodesRoute(RouteTable& http, store::NodeRegistry* registry, const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_NODES_ROUTE_H_
