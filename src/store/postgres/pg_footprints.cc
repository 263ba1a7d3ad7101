// PgJobStore's JobStore::TenantFootprint and PurgeBeyond: a tenant's sums
// over its terminal jobs (one row of tenant_footprints, which the triggers
// of migration 8 keep), and the purge of its oldest terminal jobs until
// they fit (footprint_rules.h), walked by the index jobs_footprint in one
// transaction that no other purge of the same tenant interleaves with.
#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/store/postgres/pg_job_store.h"
#include "footprint_rules.h"
#include "job_queries.h"
#include "pg_connection.h"
#include "pg_pool.h"

namespace coderunner::store {
namespace {

// PostgreSQL: the purges of one tenant hold this lock (this class and the
// tenant's hash) until their transaction ends.
constexpr int kPgTenantPurgeLockClass = 0x63726670;  // "crfp"
constexpr const char* kPgLockTenantPurgesSql =
    "SELECT pg_advisory_xact_lock(CAST(?1 AS INTEGER), hashtext(?2))";

StatusOr<Footprint> ReadPgFootprint(PgConnection& conn, const std::string& tenant) {
  PgParams params;
  params.Bind(1, tenant);
  CR_ASSIGN_OR_RETURN(PgResult sums, conn.Exec(kTenantFootprintSql, params,
                                               "read the footprint of tenant " + tenant));
  if (sums.rows() == 0) return Footprint{};
  return Footprint{sums.Int(0, 0), sums.Int(0, 1), sums.Int(0, 2)};
}

StatusOr<std::vector<FinishedJob>> SelectPgOldest(PgConnection& conn, const std::string& tenant,
                                                  int64_t after_ms, const std::string& after_id,
                                                  int64_t limit) {
  PgParams params;
  params.Bind(1, tenant);
  params.Bind(2, after_ms);
  params.Bind(3, after_id);
  params.Bind(4, limit);
  CR_ASSIGN_OR_RETURN(PgResult rows, conn.Exec(kOldestFinishedSql, params,
                                               "read the oldest jobs of tenant " + tenant));
  std::vector<FinishedJob> jobs;
  jobs.reserve(static_cast<size_t>(rows.rows()));
  for (int row = 0; row < rows.rows(); ++row) {
    jobs.push_back({rows.Text(row, 0), rows.Int(row, 1), rows.Int(row, 2), rows.Int(row, 3)});
  }
  return jobs;
}

}  // namespace

StatusOr<Footprint> PgJobStore::TenantFootprint(const std::string& tenant) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  return ReadPgFootprint(*conn, tenant);
}

StatusOr<std::vector<std::string>> PgJobStore::PurgeBeyond(const std::string& tenant,
                                                           const FootprintBounds& bounds) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(Footprint now, ReadPgFootprint(*conn, tenant));
  if (!ExcessOf(now, bounds).any()) return std::vector<std::string>{};
  PgTransaction txn(*conn);
  CR_RETURN_IF_ERROR(txn.Begin());
  PgParams key;
  key.Bind(1, static_cast<int64_t>(kPgTenantPurgeLockClass));
  key.Bind(2, tenant);
  CR_RETURN_IF_ERROR(
      conn->Exec(kPgLockTenantPurgesSql, key, "lock the purges of tenant " + tenant).status());
  // READ COMMITTED: each statement from here sees what the previous
  // holder of the lock committed.
  CR_ASSIGN_OR_RETURN(now, ReadPgFootprint(*conn, tenant));
  CR_ASSIGN_OR_RETURN(
      std::vector<std::string> ids,
      OldestBeyond(ExcessOf(now, bounds),
                   [&](int64_t after_ms, const std::string& after_id, int64_t limit) {
                     return SelectPgOldest(*conn, tenant, after_ms, after_id, limit);
                   }));
  for (const std::string& id : ids) {
    PgParams params;
    params.Bind(1, id);
    CR_RETURN_IF_ERROR(conn->Exec(kDeleteFinishedSql, params, "purge job " + id).status());
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  return ids;
}

}  // namespace coderunner::store
