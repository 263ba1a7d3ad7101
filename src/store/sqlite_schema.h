// The SQLite job database's schema: its version and the migrations that
// build it. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_SQLITE_SCHEMA_H_
#define CODERUNNER_SRC_STORE_SQLITE_SCHEMA_H_

#include <iterator>

namespace coderunner::store {

// PRAGMA user_version of a database this code fully understands.
inline constexpr int kSchemaVersion = 7;

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
    // epoch) and whether its last request took one.
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
    R"sql(
CREATE TABLE sandbox_owners (
  id         TEXT    NOT NULL PRIMARY KEY,
  tenant     TEXT    NOT NULL,
  node       TEXT    NOT NULL,
  created_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sandbox_owners_by_node ON sandbox_owners (node);
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion, "one migration per schema version");

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_SCHEMA_H_
