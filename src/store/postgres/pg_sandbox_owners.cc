// PgJobStore's sandbox placements (SandboxOwners): table sandbox_owners of
// the shared database, so that every node of a fleet knows where each
// sandbox lives. Each call is one statement on one pooled connection.
#include <optional>
#include <string>

#include "coderunner/store/postgres/pg_job_store.h"
#include "pg_connection.h"
#include "pg_pool.h"
#include "sandbox_owner_queries.h"

namespace coderunner::store {
namespace {

// Row `row` of a PgResult, as ReadPlacementFrom reads it. Borrows `result`.
struct PgOwnerRow {
  const PgResult& result;
  int row;
  std::string Text(int column) const { return result.Text(row, column); }
  int64_t Int(int column) const { return result.Int(row, column); }
};

}  // namespace

Status PgJobStore::PlaceSandbox(const SandboxPlacement& placement) {
  CR_RETURN_IF_ERROR(CheckSandboxPlacement(placement));
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  BindPlacement(params, placement);
  return conn->Exec(kPlaceSandboxSql, params, "place sandbox " + placement.id).status();
}

StatusOr<std::optional<SandboxPlacement>> PgJobStore::SandboxOwner(const std::string& id,
                                                                   const std::string& tenant) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, id);
  params.Bind(2, tenant);
  CR_ASSIGN_OR_RETURN(PgResult rows,
                      conn->Exec(kSelectSandboxOwnerSql, params, "read the owner of " + id));
  if (rows.rows() == 0) return std::optional<SandboxPlacement>();
  return std::optional<SandboxPlacement>(ReadPlacementFrom(PgOwnerRow{rows, 0}));
}

StatusOr<std::optional<SandboxPlacement>> PgJobStore::PlacementOf(const std::string& id) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, id);
  CR_ASSIGN_OR_RETURN(PgResult rows,
                      conn->Exec(kSelectPlacementSql, params, "read the placement of " + id));
  if (rows.rows() == 0) return std::optional<SandboxPlacement>();
  return std::optional<SandboxPlacement>(ReadPlacementFrom(PgOwnerRow{rows, 0}));
}

Status PgJobStore::ForgetSandbox(const std::string& id) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, id);
  return conn->Exec(kForgetSandboxSql, params, "forget sandbox " + id).status();
}

}  // namespace coderunner::store
