// SqliteJobStore's sandbox placements (SandboxOwners): table
// sandbox_owners of the job database. Each call is one statement under the
// store's mutex (autocommit, synchronous=FULL).
#include <sqlite3.h>

#include <mutex>
#include <optional>
#include <string>

#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "sandbox_owner_queries.h"
#include "sqlite_statement.h"

namespace coderunner::store {
namespace {

// The current row of a SELECT, as ReadPlacementFrom reads it. Borrows `stmt`.
struct SqliteOwnerRow {
  sqlite3_stmt* stmt;
  std::string Text(int column) const { return ColumnString(stmt, column); }
  int64_t Int(int column) const { return sqlite3_column_int64(stmt, column); }
};

}  // namespace

Status SqliteJobStore::PlaceSandbox(const SandboxPlacement& placement) {
  CR_RETURN_IF_ERROR(CheckSandboxPlacement(placement));
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement place, statements_->Prepare(kPlaceSandboxSql));
  BindPlacement(place, placement);
  return place.Run("place sandbox " + placement.id);
}

StatusOr<std::optional<SandboxPlacement>> SqliteJobStore::SandboxOwner(const std::string& id,
                                                                       const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kSelectSandboxOwnerSql));
  select.Bind(1, id);
  select.Bind(2, tenant);
  CR_ASSIGN_OR_RETURN(bool row, select.Step("read the owner of sandbox " + id));
  if (!row) return std::optional<SandboxPlacement>();
  return std::optional<SandboxPlacement>(ReadPlacementFrom(SqliteOwnerRow{select.get()}));
}

Status SqliteJobStore::ForgetSandbox(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement forget, statements_->Prepare(kForgetSandboxSql));
  forget.Bind(1, id);
  return forget.Run("forget sandbox " + id);
}

}  // namespace coderunner::store
