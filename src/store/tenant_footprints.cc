// Both job stores' JobStore::TenantFootprint and PurgeBeyond: a tenant's
// sums over its terminal jobs (one row of tenant_footprints, which the
// triggers of migration 8 keep), and the purge of its oldest terminal jobs
// until they fit, walked by the index jobs_footprint in one transaction
// that no other purge of the same tenant interleaves with.
#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/store/pg_job_store.h"
#include "coderunner/store/sqlite_job_store.h"
#include "job_queries.h"
#include "pg_connection.h"
#include "pg_pool.h"
#include "sqlite_error.h"
#include "sqlite_statement.h"
#include "sqlite_transaction.h"

namespace coderunner::store {
namespace {

// PostgreSQL: the purges of one tenant hold this lock (this class and the
// tenant's hash) until their transaction ends.
constexpr int kPgTenantPurgeLockClass = 0x63726670;  // "crfp"
constexpr const char* kPgLockTenantSql =
    "SELECT pg_advisory_xact_lock(CAST(?1 AS INTEGER), hashtext(?2))";
// Terminal jobs read per round trip while walking a tenant's oldest ones.
constexpr int64_t kPurgeBatch = 256;

// A terminal job as kOldestFinishedSql reads it.
struct FinishedJob {
  std::string id;
  int64_t artifact_bytes = 0;
  int64_t output_bytes = 0;
  int64_t finished_at_ms = 0;
};

// How much of each sum must go for a tenant to fit its bounds; nothing
// when <= 0.
struct Excess {
  int64_t artifact_bytes = 0;
  int64_t output_bytes = 0;
  bool any() const { return artifact_bytes > 0 || output_bytes > 0; }
};

Excess ExcessOf(const Footprint& now, const FootprintBounds& bounds) {
  return {bounds.max_artifact_bytes > 0 ? now.artifact_bytes - bounds.max_artifact_bytes : 0,
          bounds.max_output_bytes > 0 ? now.output_bytes - bounds.max_output_bytes : 0};
}

// The ids of the oldest terminal jobs whose removal takes `excess` away,
// oldest first. `fetch(after_ms, after_id, limit)` reads the next `limit`
// jobs after that (finished_at_ms, id), oldest first, as a
// StatusOr<std::vector<FinishedJob>>.
template <typename Fetch>
StatusOr<std::vector<std::string>> OldestBeyond(Excess excess, Fetch fetch) {
  std::vector<std::string> ids;
  int64_t after_ms = std::numeric_limits<int64_t>::min();
  std::string after_id;
  while (excess.any()) {
    CR_ASSIGN_OR_RETURN(std::vector<FinishedJob> batch, fetch(after_ms, after_id, kPurgeBatch));
    for (const FinishedJob& job : batch) {
      if (!excess.any()) break;
      excess.artifact_bytes -= job.artifact_bytes;
      excess.output_bytes -= job.output_bytes;
      ids.push_back(job.id);
    }
    if (static_cast<int64_t>(batch.size()) < kPurgeBatch) break;  // No more jobs.
    after_ms = batch.back().finished_at_ms;
    after_id = batch.back().id;
  }
  return ids;
}

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
      conn->Exec(kPgLockTenantSql, key, "lock the purges of tenant " + tenant).status());
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
