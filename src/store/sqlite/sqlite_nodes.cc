// SqliteJobStore's node registry (NodeRegistry): table nodes of the job
// database. Each call is one statement under the store's mutex; SQLite
// commits it on its own (autocommit), durably (synchronous=FULL).
#include <sqlite3.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "node_queries.h"
#include "sqlite_statement.h"

namespace coderunner::store {
namespace {

// The current row of a SELECT, as ReadNodeFrom reads it. Borrows `stmt`.
struct SqliteNodeRow {
  sqlite3_stmt* stmt;
  std::string Text(int column) const { return ColumnString(stmt, column); }
  int64_t Int(int column) const { return sqlite3_column_int64(stmt, column); }
};

}  // namespace

Status SqliteJobStore::Heartbeat(const NodeInfo& node, int64_t now_ms) {
  CR_RETURN_IF_ERROR(CheckNodeInfo(node));
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement upsert, statements_->Prepare(kUpsertNodeSql));
  BindNode(upsert, node, now_ms);
  return upsert.Run("write node " + node.id);
}

StatusOr<std::vector<NodeInfo>> SqliteJobStore::List() {
  std::vector<NodeInfo> nodes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kSelectNodesSql));
    while (true) {
      CR_ASSIGN_OR_RETURN(bool row, select.Step("list nodes"));
      if (!row) break;
      nodes.push_back(ReadNodeFrom(SqliteNodeRow{select.get()}));
    }
  }
  SortNodes(nodes);
  return nodes;
}

Status SqliteJobStore::Remove(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement remove, statements_->Prepare(kDeleteNodeSql));
  remove.Bind(1, id);
  return remove.Run("remove node " + id);
}

}  // namespace coderunner::store
