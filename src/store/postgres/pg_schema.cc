#include "pg_schema.h"

#include <string>

#include "coderunner/store/postgres/pg_job_store.h"

namespace coderunner::store {
namespace {

constexpr const char* kLockSql = "SELECT pg_advisory_xact_lock(?1)";
constexpr const char* kCreateMigrationsSql =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())";
constexpr const char* kVersionSql = "SELECT COALESCE(MAX(version), 0) FROM schema_migrations";
constexpr const char* kRecordSql = "INSERT INTO schema_migrations (version) VALUES (?1)";

}  // namespace

Status MigratePgSchema(PgConnection& conn) {
  PgTransaction txn(conn);
  CR_RETURN_IF_ERROR(txn.Begin());
  PgParams key;
  key.Bind(1, kPgMigrationLockKey);
  CR_RETURN_IF_ERROR(conn.Exec(kLockSql, key, "lock the schema").status());
  CR_RETURN_IF_ERROR(conn.Exec(kCreateMigrationsSql, {}, "create schema_migrations").status());
  CR_ASSIGN_OR_RETURN(PgResult current, conn.Exec(kVersionSql, {}, "read the schema version"));
  const int64_t version = current.Int(0, 0);
  if (version > kPgSchemaVersion) {
    return FailedPreconditionError("the database's schema is version " + std::to_string(version) +
                                       "; this build understands up to " +
                                       std::to_string(kPgSchemaVersion),
                                   kReasonSchemaTooNew);
  }
  for (int64_t v = version; v < kPgSchemaVersion; ++v) {
    CR_RETURN_IF_ERROR(conn.ExecScript(kPgMigrations[v],
                                       "migrate the schema to " + std::to_string(v + 1),
                                       PgConnection::kNoTimeout));
    PgParams next;
    next.Bind(1, v + 1);
    CR_RETURN_IF_ERROR(conn.Exec(kRecordSql, next, "record the schema version").status());
  }
  return txn.Commit();
}

}  // namespace coderunner::store
