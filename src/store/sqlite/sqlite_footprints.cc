// SqliteJobStore's JobStore::TenantFootprint and PurgeBeyond: a tenant's
// sums over its terminal jobs (one row of tenant_footprints, which the
// triggers of migration 8 keep), and the purge of its oldest terminal jobs
// until they fit (footprint_rules.h), walked by the index jobs_footprint in
// one transaction under the database's write lock.
#include <sqlite3.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "footprint_rules.h"
#include "job_queries.h"
#include "sqlite_statement.h"
#include "sqlite_transaction.h"

namespace coderunner::store {
namespace {

StatusOr<Footprint> ReadSqliteFootprint(SqliteStatementCache& statements,
                                        const std::string& tenant) {
  CR_ASSIGN_OR_RETURN(ScopedStatement sums, statements.Prepare(kTenantFootprintSql));
  sums.Bind(1, tenant);
  CR_ASSIGN_OR_RETURN(bool row, sums.Step("read the footprint of tenant " + tenant));
  if (!row) return Footprint{};
  return Footprint{sqlite3_column_int64(sums.get(), 0), sqlite3_column_int64(sums.get(), 1),
                   sqlite3_column_int64(sums.get(), 2)};
}

StatusOr<std::vector<FinishedJob>> SelectSqliteOldest(SqliteStatementCache& statements,
                                                      const std::string& tenant, int64_t after_ms,
                                                      const std::string& after_id, int64_t limit) {
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements.Prepare(kOldestFinishedSql));
  select.Bind(1, tenant);
  select.Bind(2, after_ms);
  select.Bind(3, after_id);
  select.Bind(4, limit);
  std::vector<FinishedJob> jobs;
  while (true) {
    CR_ASSIGN_OR_RETURN(bool row, select.Step("read the oldest jobs of tenant " + tenant));
    if (!row) return jobs;
    sqlite3_stmt* r = select.get();
    jobs.push_back({ColumnString(r, 0), sqlite3_column_int64(r, 1), sqlite3_column_int64(r, 2),
                    sqlite3_column_int64(r, 3)});
  }
}

}  // namespace

StatusOr<Footprint> SqliteJobStore::TenantFootprint(const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  return ReadSqliteFootprint(*statements_, tenant);
}

StatusOr<std::vector<std::string>> SqliteJobStore::PurgeBeyond(const std::string& tenant,
                                                               const FootprintBounds& bounds) {
  std::lock_guard<std::mutex> lock(mu_);
  // Most calls find the tenant within its bounds: one read, no write lock.
  CR_ASSIGN_OR_RETURN(Footprint now, ReadSqliteFootprint(*statements_, tenant));
  if (!ExcessOf(now, bounds).any()) return std::vector<std::string>{};
  Transaction txn(db_);  // BEGIN IMMEDIATE: read again, walk and delete under the write lock.
  CR_RETURN_IF_ERROR(txn.Begin());
  CR_ASSIGN_OR_RETURN(now, ReadSqliteFootprint(*statements_, tenant));
  CR_ASSIGN_OR_RETURN(
      std::vector<std::string> ids,
      OldestBeyond(ExcessOf(now, bounds),
                   [&](int64_t after_ms, const std::string& after_id, int64_t limit) {
                     return SelectSqliteOldest(*statements_, tenant, after_ms, after_id, limit);
                   }));
  for (const std::string& id : ids) {
    CR_ASSIGN_OR_RETURN(ScopedStatement del, statements_->Prepare(kDeleteFinishedSql));
    del.Bind(1, id);
    CR_RETURN_IF_ERROR(del.Run("purge job " + id));
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  return ids;
}

}  // namespace coderunner::store
