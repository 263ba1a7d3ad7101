// The SQLite job database's schema: its version and the migrations that
// build it. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_SQLITE_SQLITE_SCHEMA_H_
#define CODERUNNER_SRC_STORE_SQLITE_SQLITE_SCHEMA_H_

#include <iterator>

namespace coderunner::store {

// PRAGMA user_version of a database this code fully understands.
inline constexpr int kSchemaVersion = 8;

// kMigrations[i] takes the schema from version i to version i + 1, inside
// one transaction. Append only: never edit a migration that has shipped (a
// later version adds columns with ALTER TABLE ... ADD COLUMN ... DEFAULT).
inline constexpr const char* kMigrations[] = {
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
  created_at_ms  INTEGER NOT NULL,
  started_at_ms  INTEGER NOT NULL DEFAULT 0,
  finished_at_ms INTEGER NOT NULL DEFAULT 0,
  transitions    TEXT    NOT NULL DEFAULT '[]',
  result_json    TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX jobs_by_tenant_created ON jobs (tenant, created_at_ms, id);
CREATE INDEX jobs_by_status ON jobs (status);
CREATE INDEX jobs_by_finished ON jobs (finished_at_ms);
CREATE TABLE cache (
  key           TEXT    NOT NULL PRIMARY KEY,
  result_json   TEXT    NOT NULL,
  expires_at_ms INTEGER NOT NULL
);
CREATE INDEX cache_by_expiry ON cache (expires_at_ms);
)sql",
    // 1 -> 2: Execute mode. An intent is a job of kind 'intent' whose
    // pipeline progress (stages, attempts, answer) is kept as JSON.
    R"sql(
ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'job';
ALTER TABLE jobs ADD COLUMN progress_json TEXT NOT NULL DEFAULT '';
)sql",
    // 2 -> 3: leased claims (JobStore::Claim). A claimed job's node and
    // lease; indexes for claiming (oldest queued first) and for expiry.
    R"sql(
ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN lease_expires_at_ms INTEGER NOT NULL DEFAULT 0;
CREATE INDEX jobs_for_claim ON jobs (status, created_at_ms, id);
CREATE INDEX jobs_by_lease ON jobs (status, lease_expires_at_ms);
)sql",
    // 3 -> 4: the node registry (NodeRegistry): one row per node, written
    // by its heartbeat.
    R"sql(
CREATE TABLE nodes (
  id                TEXT    NOT NULL PRIMARY KEY,
  advertised_url    TEXT    NOT NULL DEFAULT '',
  engine            TEXT    NOT NULL DEFAULT '',
  runtime           TEXT    NOT NULL DEFAULT '',
  capacity          INTEGER NOT NULL DEFAULT 0,
  running           INTEGER NOT NULL DEFAULT 0,
  version           TEXT    NOT NULL DEFAULT '',
  started_at_ms     INTEGER NOT NULL DEFAULT 0,
  last_heartbeat_ms INTEGER NOT NULL DEFAULT 0
);
)sql",
    // 4 -> 5: the tiers' requests_per_minute token buckets (RateBuckets):
    // one row per tenant, its tokens left when last refilled (ms since the
    // epoch) and whether its last request took one. No longer used (one
    // node keeps its buckets in memory); kept so that the versions stay.
    R"sql(
CREATE TABLE rate_buckets (
  tenant         TEXT    NOT NULL PRIMARY KEY,
  tokens         REAL    NOT NULL,
  refilled_at_ms INTEGER NOT NULL,
  allowed        INTEGER NOT NULL DEFAULT 1
);
)sql",
    // 5 -> 6: the webhook outbox (WebhookOutbox): one row per delivery a
    // finished job owes, written with its terminal transition, leased by
    // the node sending it.
    R"sql(
CREATE TABLE webhook_outbox (
  job_id         TEXT    NOT NULL PRIMARY KEY,
  tenant         TEXT    NOT NULL,
  url            TEXT    NOT NULL,
  attempts       INTEGER NOT NULL DEFAULT 0,
  next_at_ms     INTEGER NOT NULL,
  owner          TEXT    NOT NULL DEFAULT '',
  lease_until_ms INTEGER NOT NULL DEFAULT 0,
  last_error     TEXT    NOT NULL DEFAULT '',
  created_ms     INTEGER NOT NULL
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_at_ms, job_id);
)sql",
    // 6 -> 7: sandbox placements (SandboxOwners): the node holding each
    // sandbox, so that a request reaching another node can be forwarded.
    // No longer used (one node holds every sandbox); kept so that the
    // versions stay.
    R"sql(
CREATE TABLE sandbox_owners (
  id         TEXT    NOT NULL PRIMARY KEY,
  tenant     TEXT    NOT NULL,
  node       TEXT    NOT NULL,
  created_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sandbox_owners_by_node ON sandbox_owners (node);
)sql",
    // 7 -> 8: each terminal job's footprint (JobStore::TenantFootprint,
    // PurgeBeyond): the bytes its kept artifacts take on the host, and the
    // bytes its record stores (result, progress, request, callback). The
    // jobs already finished get their output_bytes here; their artifacts
    // were never measured (0): they age out with jobs.retention_s. Each
    // tenant's sums over its terminal jobs are kept in tenant_footprints by
    // triggers, in the transaction of every insert, update and delete of a
    // job, so that reading them costs one row. The index walks a tenant's
    // terminal jobs oldest first.
    R"sql(
ALTER TABLE jobs ADD COLUMN artifact_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN output_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET output_bytes = length(CAST(result_json AS BLOB)) +
  length(CAST(progress_json AS BLOB)) + length(CAST(request_json AS BLOB)) +
  length(CAST(callback_url AS BLOB))
WHERE status NOT IN ('queued', 'running');
CREATE INDEX jobs_footprint ON jobs (tenant, finished_at_ms, id, artifact_bytes, output_bytes)
  WHERE status NOT IN ('queued', 'running');
CREATE TABLE tenant_footprints (
  tenant         TEXT    NOT NULL PRIMARY KEY,
  artifact_bytes INTEGER NOT NULL DEFAULT 0,
  output_bytes   INTEGER NOT NULL DEFAULT 0,
  jobs           INTEGER NOT NULL DEFAULT 0
);
INSERT INTO tenant_footprints (tenant, artifact_bytes, output_bytes, jobs)
  SELECT tenant, SUM(artifact_bytes), SUM(output_bytes), COUNT(*) FROM jobs
  WHERE status NOT IN ('queued', 'running') GROUP BY tenant;
CREATE TRIGGER jobs_footprint_inserted AFTER INSERT ON jobs
WHEN NEW.status NOT IN ('queued', 'running') BEGIN
  INSERT OR IGNORE INTO tenant_footprints (tenant) VALUES (NEW.tenant);
  UPDATE tenant_footprints SET artifact_bytes = artifact_bytes + NEW.artifact_bytes,
    output_bytes = output_bytes + NEW.output_bytes, jobs = jobs + 1 WHERE tenant = NEW.tenant;
END;
CREATE TRIGGER jobs_footprint_updated_from AFTER UPDATE OF status, tenant, artifact_bytes,
  output_bytes ON jobs WHEN OLD.status NOT IN ('queued', 'running') BEGIN
  UPDATE tenant_footprints SET artifact_bytes = artifact_bytes - OLD.artifact_bytes,
    output_bytes = output_bytes - OLD.output_bytes, jobs = jobs - 1 WHERE tenant = OLD.tenant;
END;
CREATE TRIGGER jobs_footprint_updated_to AFTER UPDATE OF status, tenant, artifact_bytes,
  output_bytes ON jobs WHEN NEW.status NOT IN ('queued', 'running') BEGIN
  INSERT OR IGNORE INTO tenant_footprints (tenant) VALUES (NEW.tenant);
  UPDATE tenant_footprints SET artifact_bytes = artifact_bytes + NEW.artifact_bytes,
    output_bytes = output_bytes + NEW.output_bytes, jobs = jobs + 1 WHERE tenant = NEW.tenant;
END;
CREATE TRIGGER jobs_footprint_deleted AFTER DELETE ON jobs
WHEN OLD.status NOT IN ('queued', 'running') BEGIN
  UPDATE tenant_footprints SET artifact_bytes = artifact_bytes - OLD.artifact_bytes,
    output_bytes = output_bytes - OLD.output_bytes, jobs = jobs - 1 WHERE tenant = OLD.tenant;
END;
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion, "one migration per schema version");

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_SQLITE_SCHEMA_H_
