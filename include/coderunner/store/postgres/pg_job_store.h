// PgJobStore: JobStore on a PostgreSQL server (15 or later) through libpq,
// shared by every node of a fleet. Same contract as SqliteJobStore
// (job_store.h); the contract suite in tests/unit/store/ runs over both.
#ifndef CODERUNNER_STORE_POSTGRES_PG_JOB_STORE_H_
#define CODERUNNER_STORE_POSTGRES_PG_JOB_STORE_H_

#include <memory>
#include <string>

#include "coderunner/store/job_store.h"
#include "coderunner/store/node_registry.h"
#include "coderunner/store/queue_bounds.h"
#include "coderunner/store/rate_buckets.h"
#include "coderunner/store/sandbox_owners.h"
#include "coderunner/store/store_parts.h"
#include "coderunner/store/webhook_outbox.h"

namespace coderunner::store {

class PgPool;

// Reasons of the errors only a server store returns.
// The database's schema is newer than this build understands.
inline constexpr const char* kReasonSchemaTooNew = "schema_too_new";

struct PgStoreOptions {
  // A libpq connection string ("host=/run/pg dbname=coderunner" or
  // "postgresql://user@host:5432/db"). Must not hold a password.
  std::string conninfo;
  // Sent as libpq's password parameter; "" for none. Never logged nor put
  // into a Status message.
  std::string password;
  // Upper bound of open connections, 1..256.
  int max_connections = 8;
  // Bound on establishing one connection, and on waiting for a free pooled
  // connection, in milliseconds (>= 100).
  int connect_timeout_ms = 5000;
  // Bound on each statement, from sending it to the last byte of its
  // answer, in milliseconds (>= 100): a server that accepted the
  // connection and hangs fails the call Unavailable ("store_unavailable")
  // instead of holding its thread. Schema migrations are not bounded.
  int call_timeout_ms = 30000;
};

// Thread-safe: each call takes a connection from a bounded pool for its
// duration. A connection the server closed is replaced on next use; while
// the server is unreachable calls fail Unavailable ("store_unavailable").
class PgJobStore : public JobStore,
                   public NodeRegistry,
                   public RateBuckets,
                   public BoundedQueue,
                   public WebhookOutbox,
                   public SandboxOwners {
 public:
  // Connects and applies the versioned migrations (table schema_migrations)
  // under a transaction-scoped advisory lock, so that nodes starting
  // together migrate once. Unavailable if the server cannot be reached
  // within connect_timeout_ms (the message never holds the password);
  // FailedPrecondition ("schema_too_new") if the schema is newer than this
  // build. `redactor` as for SqliteJobStore::Open.
  static StatusOr<std::unique_ptr<PgJobStore>> Open(const PgStoreOptions& options,
                                                    RequestRedactor redactor = nullptr);
  ~PgJobStore() override;

  Status Insert(const std::vector<store::JobRecord>& records) override;
  Status Transition(const std::string& id, store::JobStatus to, int64_t at_ms,
                    const std::string& result_json, const std::string& image_digest,
                    const std::string& owner, int64_t artifact_bytes = 0) override;
  StatusOr<std::vector<store::JobRecord>> Claim(const std::string& node, int max, int64_t now_ms,
                                                int64_t lease_ms) override;
  StatusOr<std::vector<std::string>> RenewLeases(const std::string& node,
                                                 const std::vector<std::string>& ids,
                                                 int64_t now_ms, int64_t lease_ms) override;
  StatusOr<ExpiredLeases> RequeueExpired(int64_t now_ms, int max_attempts,
                                         const std::string& interrupted_result_json) override;
  Status UpdateProgress(const std::string& id, const std::string& progress_json) override;
  StatusOr<store::JobRecord> Get(const std::string& id, const std::string& tenant) override;
  StatusOr<ListPage> List(const ListFilter& filter) override;
  StatusOr<std::vector<store::JobRecord>> NonTerminal() override;
  StatusOr<std::vector<std::string>> PurgeFinishedBefore(int64_t before_ms) override;
  // TenantFootprint and PurgeBeyond: pg_footprints.cc.
  StatusOr<store::Footprint> TenantFootprint(const std::string& tenant) override;
  StatusOr<std::vector<std::string>> PurgeBeyond(const std::string& tenant,
                                                 const store::FootprintBounds& bounds) override;
  StatusOr<std::optional<std::string>> CacheGet(const std::string& key, int64_t now_ms) override;
  Status CachePut(const std::string& key, const std::string& result_json,
                  int64_t expires_at_ms) override;
  StatusOr<int> CachePurgeExpired(int64_t now_ms) override;
  Status Ping() override;

  // NodeRegistry, on the same database (table nodes): pg_nodes.cc.
  Status Heartbeat(const NodeInfo& node, int64_t now_ms) override;
  StatusOr<std::vector<NodeInfo>> List() override;
  Status Remove(const std::string& id) override;

  // RateBuckets, on the same database (table rate_buckets): pg_rate_buckets.cc.
  StatusOr<TokenAnswer> TakeToken(const std::string& tenant, int per_minute,
                                  std::optional<int64_t> at_ms) override;
  // BoundedQueue, on the jobs table: pg_bounded_inserts.cc.
  Status InsertWithin(const JobRecord& record, const QueueBounds& bounds) override;
  // WebhookOutbox, on the same database (table webhook_outbox): pg_outbox.cc.
  StatusOr<std::vector<WebhookDelivery>> ClaimDeliveries(
      const std::string& node, int max, int64_t now_ms, int64_t lease_ms, int per_tenant,
      const std::vector<std::string>& skip_tenants) override;
  Status Delivered(const std::string& job_id, const std::string& node) override;
  Status Retry(const std::string& job_id, const std::string& node, int64_t next_at_ms,
               const std::string& error) override;
  Status GiveUp(const std::string& job_id, const std::string& node) override;
  StatusOr<int> ReleaseDeliveries(const std::string& node) override;
  StatusOr<std::vector<WebhookDelivery>> ListDeliveries() override;
  // SandboxOwners, on the same database (table sandbox_owners): pg_sandbox_owners.cc.
  Status PlaceSandbox(const SandboxPlacement& placement) override;
  StatusOr<std::optional<SandboxPlacement>> SandboxOwner(const std::string& id,
                                                         const std::string& tenant) override;
  StatusOr<std::optional<SandboxPlacement>> PlacementOf(const std::string& id) override;
  Status ForgetSandbox(const std::string& id) override;

 private:
  PgJobStore(std::unique_ptr<PgPool> pool, RequestRedactor redactor);

  std::unique_ptr<PgPool> pool_;
  const RequestRedactor redactor_;
};

// Every part of `store` (store_parts.h): jobs owns it, each other part
// points into it. `store` must not be null.
StoreParts PartsOf(std::unique_ptr<PgJobStore> store);

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_POSTGRES_PG_JOB_STORE_H_
