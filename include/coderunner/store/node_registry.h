// NodeRegistry: the nodes of a fleet that share a store, one row each.
//
// Each node writes its own row every heartbeat (Heartbeat) and removes it
// when it shuts down cleanly (Remove). A node that died keeps its row: its
// last_heartbeat_ms tells how long ago it was last seen. Both job stores
// implement it over their own database (SqliteJobStore, PgJobStore), so
// every node on one database sees every other one.
#ifndef CODERUNNER_STORE_NODE_REGISTRY_H_
#define CODERUNNER_STORE_NODE_REGISTRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::store {

// Heartbeat got a node it cannot store (an empty or too long id, a too
// long text field, a negative count). InvalidArgument.
inline constexpr const char* kReasonInvalidNode = "invalid_node";

// Every node writes its row this often (ms), and a node is alive while its
// last heartbeat is younger than kNodeAliveHeartbeats periods.
inline constexpr int64_t kNodeHeartbeatPeriodMs = 5000;
inline constexpr int kNodeAliveHeartbeats = 3;

// Bounds of NodeInfo's text fields, in bytes.
inline constexpr size_t kMaxNodeIdBytes = 128;
inline constexpr size_t kMaxNodeTextBytes = 2048;

// One node, as stored. Plain data.
struct NodeInfo {
  std::string id;              // config `instance`; 1..kMaxNodeIdBytes bytes.
  std::string advertised_url;  // Where other nodes reach it (node.advertise_url).
  std::string engine;          // "docker", "podman", "native", ... ("" unknown).
  std::string runtime;         // OCI runtime of its jobs ("runc", "runsc", "").
  int capacity = 0;            // Jobs it runs at once (jobs.max_concurrent). >= 0.
  int running = 0;             // Jobs it runs now. >= 0.
  std::string version;         // The coderunner version it runs.
  int64_t started_at_ms = 0;   // When its process started. ms since the epoch.
  // When it last wrote its row (the `now_ms` of its last Heartbeat). ms
  // since the epoch.
  int64_t last_heartbeat_ms = 0;
};

class NodeRegistry {
 public:
  virtual ~NodeRegistry() = default;

  // Inserts or replaces the row of `node.id` with `node`, its
  // last_heartbeat_ms set to `now_ms` (node.last_heartbeat_ms is ignored).
  // Commits durably before it returns. An empty or over-long id, an
  // over-long text field, or a negative capacity or running: InvalidArgument
  // ("invalid_node"); a server store that cannot be reached: Unavailable
  // ("store_unavailable"). Thread-safe.
  virtual Status Heartbeat(const NodeInfo& node, int64_t now_ms) = 0;

  // Every registered node, alive or not, ordered by id (byte order).
  // Failure as Heartbeat's. Thread-safe.
  virtual StatusOr<std::vector<NodeInfo>> List() = 0;

  // Removes the row of `id` (a node leaving cleanly). An unknown id is OK
  // (nothing to remove). Failure as Heartbeat's. Thread-safe.
  virtual Status Remove(const std::string& id) = 0;
};

// Checks `node` against Heartbeat's rules: OK or InvalidArgument
// ("invalid_node") naming the field. Pure; thread-safe.
Status CheckNodeInfo(const NodeInfo& node);

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_NODE_REGISTRY_H_
