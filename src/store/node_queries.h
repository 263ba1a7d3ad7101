// The node registry's SQL, the same text for SQLite and PostgreSQL (?N
// placeholders; PgConnection turns them into $N), and the columns of a
// node row. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_NODE_QUERIES_H_
#define CODERUNNER_SRC_STORE_NODE_QUERIES_H_

#include <algorithm>
#include <vector>

#include "coderunner/store/node_registry.h"

namespace coderunner::store {

// Columns of kSelectNodesSql, in order.
enum NodeColumn {
  kNodeId = 0,
  kNodeAdvertisedUrl,
  kNodeEngine,
  kNodeRuntime,
  kNodeCapacity,
  kNodeRunning,
  kNodeVersion,
  kNodeStartedAt,
  kNodeLastHeartbeat,
};

// ?1..?9 in NodeColumn order. Both backends know ON CONFLICT ... DO UPDATE.
inline constexpr const char* kUpsertNodeSql =
    "INSERT INTO nodes (id, advertised_url, engine, runtime, capacity, running, version, "
    "started_at_ms, last_heartbeat_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
    "ON CONFLICT (id) DO UPDATE SET advertised_url = excluded.advertised_url, "
    "engine = excluded.engine, runtime = excluded.runtime, capacity = excluded.capacity, "
    "running = excluded.running, version = excluded.version, "
    "started_at_ms = excluded.started_at_ms, last_heartbeat_ms = excluded.last_heartbeat_ms";

inline constexpr const char* kSelectNodesSql =
    "SELECT id, advertised_url, engine, runtime, capacity, running, version, started_at_ms, "
    "last_heartbeat_ms FROM nodes";

inline constexpr const char* kDeleteNodeSql = "DELETE FROM nodes WHERE id = ?1";

// Binds `node` (its heartbeat at `now_ms`) to kUpsertNodeSql's ?1..?9 on
// `stmt` (a ScopedStatement or PgParams).
template <typename Statement>
void BindNode(Statement& stmt, const NodeInfo& node, int64_t now_ms) {
  stmt.Bind(kNodeId + 1, node.id);
  stmt.Bind(kNodeAdvertisedUrl + 1, node.advertised_url);
  stmt.Bind(kNodeEngine + 1, node.engine);
  stmt.Bind(kNodeRuntime + 1, node.runtime);
  stmt.Bind(kNodeCapacity + 1, static_cast<int64_t>(node.capacity));
  stmt.Bind(kNodeRunning + 1, static_cast<int64_t>(node.running));
  stmt.Bind(kNodeVersion + 1, node.version);
  stmt.Bind(kNodeStartedAt + 1, node.started_at_ms);
  stmt.Bind(kNodeLastHeartbeat + 1, now_ms);
}

// A node from a row whose `Text(column)` and `Int(column)` read
// NodeColumn's columns.
template <typename Row>
NodeInfo ReadNodeFrom(const Row& row) {
  NodeInfo node;
  node.id = row.Text(kNodeId);
  node.advertised_url = row.Text(kNodeAdvertisedUrl);
  node.engine = row.Text(kNodeEngine);
  node.runtime = row.Text(kNodeRuntime);
  node.capacity = static_cast<int>(row.Int(kNodeCapacity));
  node.running = static_cast<int>(row.Int(kNodeRunning));
  node.version = row.Text(kNodeVersion);
  node.started_at_ms = row.Int(kNodeStartedAt);
  node.last_heartbeat_ms = row.Int(kNodeLastHeartbeat);
  return node;
}

// `nodes` ordered by id in byte order (the same on both backends, whatever
// a database's collation).
inline void SortNodes(std::vector<NodeInfo>& nodes) {
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeInfo& a, const NodeInfo& b) { return a.id < b.id; });
}

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_NODE_QUERIES_H_
