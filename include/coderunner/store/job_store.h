// JobStore: durable storage of job records and the result cache.
//
// Two implementations hold the same contract (tests/unit/store/ runs one
// suite over both): SQLite, embedded, for one machine (sqlite_job_store.h),
// and PostgreSQL, shared by a fleet of nodes (pg_job_store.h). Every method
// commits durably before it returns OK. Implementations must be thread-safe.
#ifndef CODERUNNER_STORE_JOB_STORE_H_
#define CODERUNNER_STORE_JOB_STORE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"

namespace coderunner::store {

// Reasons of the errors a JobStore returns (Status::reason()).
inline constexpr const char* kReasonJobNotFound = "job_not_found";
inline constexpr const char* kReasonJobTerminal = "job_terminal";
inline constexpr const char* kReasonJobExists = "job_exists";
inline constexpr const char* kReasonInvalidCursor = "invalid_cursor";
// The database cannot be reached (a server store: connection refused,
// closed, or no pooled connection within the deadline). Unavailable.
inline constexpr const char* kReasonStoreUnavailable = "store_unavailable";

// Rewrites a finished job's stored request (the envelope of
// jobs::EncodeStoredRequest) and callback URL in place, removing what
// looks secret (jobs::RedactStoredRequest). A store applies it to every
// record as it becomes terminal: only a queued or running job needs its
// request verbatim (recovery runs it again after a restart).
using RequestRedactor = std::function<void(std::string& request_json, std::string& callback_url)>;

struct ListFilter {
  std::string tenant = "default";          // Only this tenant's jobs.
  std::optional<store::JobStatus> status;  // Only this status, if set.
  int limit = 50;                          // 1..500 rows per page.
  std::string cursor;                      // "" for the first page; else a next_cursor.
};

struct ListPage {
  std::vector<store::JobRecord> jobs;  // Newest first; request_json and result_json left empty.
  std::string next_cursor;             // "" when there are no more.
};

class JobStore {
 public:
  virtual ~JobStore() = default;

  // Inserts `records` in one transaction (all or none). Each must be new:
  // an existing id is AlreadyExists. Their `transitions` are stored as given.
  virtual Status Insert(const std::vector<store::JobRecord>& records) = 0;

  // Moves job `id` to `to` at `at_ms` and appends the transition. Allowed
  // only from a non-terminal status; from a terminal one it is
  // FailedPrecondition (reason "job_terminal"), which makes a cancel racing
  // a finish resolve to exactly one winner. Going to running sets
  // started_at_ms; going to a terminal status sets finished_at_ms and, when
  // non-empty, result_json and image_digest. Going to queued (crash
  // recovery) increments attempt. Unknown id: NotFound.
  virtual Status Transition(const std::string& id, store::JobStatus to, int64_t at_ms,
                            const std::string& result_json = "",
                            const std::string& image_digest = "") = 0;

  // Replaces the progress JSON of job `id` (an intent's stages and
  // attempts) while it is queued or running. A terminal job keeps what it
  // had: FailedPrecondition (reason "job_terminal"). Unknown id: NotFound.
  virtual Status UpdateProgress(const std::string& id, const std::string& progress_json) = 0;
  // The whole record. Unknown id, or an id of another tenant when `tenant`
  // is non-empty: NotFound (reason "job_not_found").
  virtual StatusOr<store::JobRecord> Get(const std::string& id, const std::string& tenant = "") = 0;

  // One page of `filter.tenant`'s jobs. A malformed cursor is InvalidArgument.
  virtual StatusOr<ListPage> List(const ListFilter& filter) = 0;

  // Every queued or running job of every tenant, oldest first, whole records
  // (for recovery at startup).
  virtual StatusOr<std::vector<store::JobRecord>> NonTerminal() = 0;

  // Deletes terminal jobs that finished before `before_ms`; returns their ids
  // (so their files can be removed too).
  virtual StatusOr<std::vector<std::string>> PurgeFinishedBefore(int64_t before_ms) = 0;

  // Result cache: the result JSON stored under `key` if it has not expired
  // at `now_ms`, else nullopt.
  virtual StatusOr<std::optional<std::string>> CacheGet(const std::string& key, int64_t now_ms) = 0;
  // Stores (or replaces) `key` until `expires_at_ms`.
  virtual Status CachePut(const std::string& key, const std::string& result_json,
                          int64_t expires_at_ms) = 0;
  // Deletes expired entries; returns how many.
  virtual StatusOr<int> CachePurgeExpired(int64_t now_ms) = 0;

  // OK when the store can serve a request now (/readyz). A server store
  // runs a round trip; failure is Unavailable (reason "store_unavailable").
  // An embedded store is always OK.
  virtual Status Ping() = 0;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_JOB_STORE_H_
