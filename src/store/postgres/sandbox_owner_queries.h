// The sandbox_owners table's SQL (?N placeholders; PgConnection turns them
// into $N). Internal to src/store/postgres.
#ifndef CODERUNNER_SRC_STORE_POSTGRES_SANDBOX_OWNER_QUERIES_H_
#define CODERUNNER_SRC_STORE_POSTGRES_SANDBOX_OWNER_QUERIES_H_

#include "coderunner/store/sandbox_owners.h"

namespace coderunner::store {

// Columns of kSelectSandboxOwnerSql and kSelectPlacementSql, in order (also kPlaceSandboxSql's ?N -
// 1).
enum SandboxOwnerColumn {
  kOwnerId = 0,
  kOwnerTenant,
  kOwnerNode,
  kOwnerCreated,
};

inline constexpr const char* kPlaceSandboxSql =
    "INSERT INTO sandbox_owners (id, tenant, node, created_ms) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT (id) DO UPDATE SET tenant = excluded.tenant, node = excluded.node, "
    "created_ms = excluded.created_ms";

inline constexpr const char* kSelectSandboxOwnerSql =
    "SELECT id, tenant, node, created_ms FROM sandbox_owners WHERE id = ?1 AND tenant = ?2";

inline constexpr const char* kSelectPlacementSql =
    "SELECT id, tenant, node, created_ms FROM sandbox_owners WHERE id = ?1";

inline constexpr const char* kForgetSandboxSql = "DELETE FROM sandbox_owners WHERE id = ?1";

// Binds `p` to kPlaceSandboxSql's ?1..?4 on `stmt` (PgParams).
template <typename Statement>
void BindPlacement(Statement& stmt, const SandboxPlacement& p) {
  stmt.Bind(kOwnerId + 1, p.id);
  stmt.Bind(kOwnerTenant + 1, p.tenant);
  stmt.Bind(kOwnerNode + 1, p.node);
  stmt.Bind(kOwnerCreated + 1, p.created_ms);
}

// A placement from a row whose `Text(column)` and `Int(column)` read
// SandboxOwnerColumn's columns.
template <typename Row>
SandboxPlacement ReadPlacementFrom(const Row& row) {
  SandboxPlacement p;
  p.id = row.Text(kOwnerId);
  p.tenant = row.Text(kOwnerTenant);
  p.node = row.Text(kOwnerNode);
  p.created_ms = row.Int(kOwnerCreated);
  return p;
}

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_POSTGRES_SANDBOX_OWNER_QUERIES_H_
