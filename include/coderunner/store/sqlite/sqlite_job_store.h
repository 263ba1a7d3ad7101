// SqliteJobStore: JobStore in one SQLite database file, WAL mode.
#ifndef CODERUNNER_STORE_SQLITE_SQLITE_JOB_STORE_H_
#define CODERUNNER_STORE_SQLITE_SQLITE_JOB_STORE_H_

#include <memory>
#include <mutex>
#include <string>

#include "coderunner/store/job_store.h"
#include "coderunner/store/node_registry.h"
#include "coderunner/store/store_parts.h"
#include "coderunner/store/webhook_outbox.h"

struct sqlite3;

namespace coderunner::store {

class SqliteResultCache;
class SqliteStatementCache;

// journal_mode=WAL and synchronous=FULL: a commit survives kill -9 and power
// loss. One connection, serialized by a mutex (SQLite serializes writers
// anyway). Thread-safe.
class SqliteJobStore : public JobStore, public NodeRegistry, public WebhookOutbox {
 public:
  // Opens (creating if needed) the database at `path` (parent directories
  // are created) and migrates its schema. The file and its -wal/-shm files
  // are made 0600: they hold every request and its output. Unavailable if
  // it cannot be opened. `redactor` (none: requests are kept verbatim) is
  // applied to each record's request and callback URL when it becomes
  // terminal (Transition) or is inserted terminal (a cache hit).
  static StatusOr<std::unique_ptr<SqliteJobStore>> Open(const std::string& path,
                                                        RequestRedactor redactor = nullptr);
  ~SqliteJobStore() override;

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
  // TenantFootprint and PurgeBeyond: sqlite_footprints.cc.
  StatusOr<store::Footprint> TenantFootprint(const std::string& tenant) override;
  StatusOr<std::vector<std::string>> PurgeBeyond(const std::string& tenant,
                                                 const store::FootprintBounds& bounds) override;
  StatusOr<std::optional<std::string>> CacheGet(const std::string& key, int64_t now_ms) override;
  Status CachePut(const std::string& key, const std::string& result_json,
                  int64_t expires_at_ms) override;
  StatusOr<int> CachePurgeExpired(int64_t now_ms) override;
  Status Ping() override { return OkStatus(); }  // The file is open for the store's lifetime.

  // NodeRegistry, on the same database (table nodes): sqlite_nodes.cc.
  Status Heartbeat(const NodeInfo& node, int64_t now_ms) override;
  StatusOr<std::vector<NodeInfo>> List() override;
  Status Remove(const std::string& id) override;

  // WebhookOutbox, on the same database (table webhook_outbox): sqlite_outbox.cc.
  StatusOr<std::vector<WebhookDelivery>> ClaimDeliveries(
      const std::string& node, int max, int64_t now_ms, int64_t lease_ms, int per_tenant,
      const std::vector<std::string>& skip_tenants) override;
  Status Delivered(const std::string& job_id, const std::string& node) override;
  Status Retry(const std::string& job_id, const std::string& node, int64_t next_at_ms,
               const std::string& error) override;
  Status GiveUp(const std::string& job_id, const std::string& node) override;
  StatusOr<int> ReleaseDeliveries(const std::string& node) override;
  StatusOr<std::vector<WebhookDelivery>> ListDeliveries() override;

 private:
  SqliteJobStore(sqlite3* db, RequestRedactor redactor);

  std::mutex mu_;
  sqlite3* db_;                                       // Guarded by mu_.
  std::unique_ptr<SqliteStatementCache> statements_;  // Guarded by mu_; kept across calls.
  std::unique_ptr<SqliteResultCache> cache_;          // Guarded by mu_.
  const RequestRedactor redactor_;
};

// The parts of `store` (store_parts.h): jobs owns it, nodes and outbox
// point into it. One node needs no bounded queue, rate buckets or sandbox
// owners in its database: those are null. `store` must not be null.
StoreParts PartsOf(std::unique_ptr<SqliteJobStore> store);

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_SQLITE_SQLITE_JOB_STORE_H_
