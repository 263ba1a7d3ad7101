// PgJobStore's node registry (NodeRegistry): table nodes of the shared
// database, so that every node of a fleet sees every other one. Each call
// is one statement on one pooled connection (committed on its own).
#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/store/postgres/pg_job_store.h"
#include "node_queries.h"
#include "pg_connection.h"
#include "pg_pool.h"

namespace coderunner::store {
namespace {

// Row `row` of a PgResult, as ReadNodeFrom reads it. Borrows `result`.
struct PgNodeRow {
  const PgResult& result;
  int row;
  std::string Text(int column) const { return result.Text(row, column); }
  int64_t Int(int column) const { return result.Int(row, column); }
};

}  // namespace

Status PgJobStore::Heartbeat(const NodeInfo& node, int64_t now_ms) {
  CR_RETURN_IF_ERROR(CheckNodeInfo(node));
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  BindNode(params, node, now_ms);
  return conn->Exec(kUpsertNodeSql, params, "write node " + node.id).status();
}

StatusOr<std::vector<NodeInfo>> PgJobStore::List() {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(PgResult rows, conn->Exec(kSelectNodesSql, {}, "list nodes"));
  std::vector<NodeInfo> nodes;
  nodes.reserve(static_cast<size_t>(rows.rows()));
  for (int row = 0; row < rows.rows(); ++row) nodes.push_back(ReadNodeFrom(PgNodeRow{rows, row}));
  SortNodes(nodes);
  return nodes;
}

Status PgJobStore::Remove(const std::string& id) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, id);
  return conn->Exec(kDeleteNodeSql, params, "remove node " + id).status();
}

}  // namespace coderunner::store
