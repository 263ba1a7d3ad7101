// The PostgreSQL job database's schema: versioned migrations, applied once
// however many nodes open the database together. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_POSTGRES_PG_SCHEMA_H_
#define CODERUNNER_SRC_STORE_POSTGRES_PG_SCHEMA_H_

#include <cstdint>
#include <iterator>

#include "coderunner/common/status.h"
#include "pg_connection.h"

namespace coderunner::store {

// The schema version this code fully understands (rows of
// schema_migrations: one per version applied).
inline constexpr int kPgSchemaVersion = 8;

// Key of the migrations' advisory lock (transaction-scoped; "cr" "migr"
// as bytes).
inline constexpr int64_t kPgMigrationLockKey = 0x63726d696772;

// kPgMigrations[i] takes the schema from version i to version i + 1. The
// tables mirror sqlite_schema.h, column for column (JobColumn order), with
// BIGINT times and TEXT JSON. Append only.
inline constexpr const char* kPgMigrations[] = {
    // 0 -> 1: jobs and the result cache.
    R"sql(
CREATE TABLE jobs (
  id             TEXT    NOT NULL PRIMARY KEY,
  tenant         TEXT    NOT NULL,
  status         TEXT    NOT NULL,
  language       TEXT    NOT NULL DEFAULT '',
  request_json   TEXT    NOT NULL DEFAULT '',
  code_sha256    TEXT    NOT NULL DEFAULT '',
  inputs_sha256  TEXT    NOT NULL DEFAULT '',
  cache_key      TEXT    NOT NULL DEFAULT '',
  image          TEXT    NOT NULL DEFAULT '',
  image_digest   TEXT    NOT NULL DEFAULT '',
  limits_json    TEXT    NOT NULL DEFAULT '',
  callback_url   TEXT    NOT NULL DEFAULT '',
  replay_of      TEXT    NOT NULL DEFAULT '',
  cached         INTEGER NOT NULL DEFAULT 0,
  attempt        INTEGER NOT NULL DEFAULT 1,
  created_at_ms  BIGINT  NOT NULL,
  started_at_ms  BIGINT  NOT NULL DEFAULT 0,
  finished_at_ms BIGINT  NOT NULL DEFAULT 0,
  transitions    TEXT    NOT NULL DEFAULT '[]',
  result_json    TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX jobs_by_tenant_created ON jobs (tenant, created_at_ms, id);
CREATE INDEX jobs_by_status ON jobs (status);
CREATE INDEX jobs_by_finished ON jobs (finished_at_ms);
CREATE TABLE cache (
  key           TEXT   NOT NULL PRIMARY KEY,
  result_json   TEXT   NOT NULL,
  expires_at_ms BIGINT NOT NULL
);
CREATE INDEX cache_by_expiry ON cache (expires_at_ms);
)sql",
    // 1 -> 2: Execute mode (see sqlite_schema.h).
    R"sql(
ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'job';
ALTER TABLE jobs ADD COLUMN progress_json TEXT NOT NULL DEFAULT '';
)sql",
    // 2 -> 3: leased claims (see sqlite_schema.h).
    R"sql(
ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN lease_expires_at_ms BIGINT NOT NULL DEFAULT 0;
CREATE INDEX jobs_for_claim ON jobs (status, created_at_ms, id);
CREATE INDEX jobs_by_lease ON jobs (status, lease_expires_at_ms);
)sql",
    // 3 -> 4: the node registry (see sqlite_schema.h).
    R"sql(
CREATE TABLE nodes (
  id                TEXT    NOT NULL PRIMARY KEY,
  advertised_url    TEXT    NOT NULL DEFAULT '',
  engine            TEXT    NOT NULL DEFAULT '',
  runtime           TEXT    NOT NULL DEFAULT '',
  capacity          INTEGER NOT NULL DEFAULT 0,
  running           INTEGER NOT NULL DEFAULT 0,
  version           TEXT    NOT NULL DEFAULT '',
  started_at_ms     BIGINT  NOT NULL DEFAULT 0,
  last_heartbeat_ms BIGINT  NOT NULL DEFAULT 0
);
)sql",
    // 4 -> 5: the tiers' shared rate buckets (see sqlite_schema.h).
    R"sql(
CREATE TABLE rate_buckets (
  tenant         TEXT             NOT NULL PRIMARY KEY,
  tokens         DOUBLE PRECISION NOT NULL,
  refilled_at_ms BIGINT           NOT NULL,
  allowed        INTEGER          NOT NULL DEFAULT 1
);
)sql",
    // 5 -> 6: the webhook outbox (see sqlite_schema.h).
    R"sql(
CREATE TABLE webhook_outbox (
  job_id         TEXT    NOT NULL PRIMARY KEY,
  tenant         TEXT    NOT NULL,
  url            TEXT    NOT NULL,
  attempts       INTEGER NOT NULL DEFAULT 0,
  next_at_ms     BIGINT  NOT NULL,
  owner          TEXT    NOT NULL DEFAULT '',
  lease_until_ms BIGINT  NOT NULL DEFAULT 0,
  last_error     TEXT    NOT NULL DEFAULT '',
  created_ms     BIGINT  NOT NULL
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_at_ms, job_id);
)sql",
    // 6 -> 7: sandbox placements (see sqlite_schema.h).
    R"sql(
CREATE TABLE sandbox_owners (
  id         TEXT   NOT NULL PRIMARY KEY,
  tenant     TEXT   NOT NULL,
  node       TEXT   NOT NULL,
  created_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX sandbox_owners_by_node ON sandbox_owners (node);
)sql",
    // 7 -> 8: each terminal job's footprint (see sqlite_schema.h); one
    // row-level trigger keeps tenant_footprints.
    R"sql(
ALTER TABLE jobs ADD COLUMN artifact_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN output_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE jobs SET output_bytes = octet_length(result_json) + octet_length(progress_json) +
  octet_length(request_json) + octet_length(callback_url)
WHERE status NOT IN ('queued', 'running');
CREATE INDEX jobs_footprint ON jobs (tenant, finished_at_ms, id, artifact_bytes, output_bytes)
  WHERE status NOT IN ('queued', 'running');
CREATE TABLE tenant_footprints (
  tenant         TEXT   NOT NULL PRIMARY KEY,
  artifact_bytes BIGINT NOT NULL DEFAULT 0,
  output_bytes   BIGINT NOT NULL DEFAULT 0,
  jobs           BIGINT NOT NULL DEFAULT 0
);
INSERT INTO tenant_footprints (tenant, artifact_bytes, output_bytes, jobs)
  SELECT tenant, SUM(artifact_bytes), SUM(output_bytes), COUNT(*) FROM jobs
  WHERE status NOT IN ('queued', 'running') GROUP BY tenant;
CREATE FUNCTION jobs_footprint_kept() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    IF OLD.status NOT IN ('queued', 'running') THEN
      UPDATE tenant_footprints SET artifact_bytes = artifact_bytes - OLD.artifact_bytes,
        output_bytes = output_bytes - OLD.output_bytes, jobs = jobs - 1
      WHERE tenant = OLD.tenant;
    END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.status NOT IN ('queued', 'running') THEN
      INSERT INTO tenant_footprints AS f (tenant, artifact_bytes, output_bytes, jobs)
      VALUES (NEW.tenant, NEW.artifact_bytes, NEW.output_bytes, 1)
      ON CONFLICT (tenant) DO UPDATE SET artifact_bytes = f.artifact_bytes + EXCLUDED.artifact_bytes,
        output_bytes = f.output_bytes + EXCLUDED.output_bytes, jobs = f.jobs + 1;
    END IF;
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER jobs_footprint AFTER INSERT OR DELETE OR UPDATE OF status, tenant, artifact_bytes,
  output_bytes ON jobs FOR EACH ROW EXECUTE FUNCTION jobs_footprint_kept();
)sql",
};
static_assert(std::size(kPgMigrations) == kPgSchemaVersion, "one migration per schema version");

// Brings the database of `conn` to kPgSchemaVersion in one transaction
// under the migration advisory lock, recording each version applied in
// schema_migrations. A database at a newer version: FailedPrecondition
// ("schema_too_new"); other failures as PgConnection::Exec.
Status MigratePgSchema(PgConnection& conn);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_POSTGRES_PG_SCHEMA_H_
