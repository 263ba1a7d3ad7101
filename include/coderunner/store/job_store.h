// JobStore: durable storage of job records and the result cache.
//
// Two implementations hold the same contract (tests/unit/store/ runs one
// suite over both): SQLite, embedded, for one machine
// (sqlite/sqlite_job_store.h), and PostgreSQL, shared by a fleet of nodes
// (postgres/pg_job_store.h). Every method commits durably before it returns
// OK. Implementations must be thread-safe.
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
// A Transition fenced by an owner found the job owned by another node, or
// by none (its lease expired and it was requeued). FailedPrecondition.
inline constexpr const char* kReasonLeaseLost = "lease_lost";
// Claim, RenewLeases or RequeueExpired got an argument out of range.
// InvalidArgument.
inline constexpr const char* kReasonInvalidClaim = "invalid_claim";

// Claim's bounds: jobs per call, and lease length in milliseconds.
inline constexpr int kMaxClaimJobs = 64;
inline constexpr int64_t kMaxLeaseMs = int64_t{24} * 60 * 60 * 1000;

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

// What RequeueExpired did, ids in the order of their lease expiry.
struct ExpiredLeases {
  std::vector<std::string> requeued;  // Back to queued, attempt + 1.
  std::vector<std::string> ended;     // Out of attempts: now error.
};

// What one tenant's terminal jobs keep on the host (JobStore::TenantFootprint).
// Plain data.
struct Footprint {
  // Sum of their artifact_bytes: what each one's kept artifacts take on
  // the host's disk, as the caller measured them when it ended
  // (Transition's `artifact_bytes`).
  int64_t artifact_bytes = 0;
  // Sum of their output_bytes: the bytes each record stores of the job,
  // counted by the store when it became terminal: its result_json (the
  // output), progress_json, request_json and callback_url as stored (the
  // request redacted).
  int64_t output_bytes = 0;
  int64_t jobs = 0;  // How many terminal jobs.
};

// PurgeBeyond's bounds, in bytes. 0 (or less): that sum is not bounded.
struct FootprintBounds {
  int64_t max_artifact_bytes = 0;
  int64_t max_output_bytes = 0;
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
  // recovery) increments attempt and clears owner and lease. Unknown id:
  // NotFound. Fencing: when `owner` is non-empty the move happens only if
  // the job's owner is `owner` (checked before the terminal rule), else
  // FailedPrecondition (reason "lease_lost"): a node whose job was requeued
  // and claimed elsewhere cannot write its result. `owner` "" moves any job.
  // Going to a terminal status also records the job's footprint (see
  // Footprint): `artifact_bytes`, and the output_bytes the record then
  // stores. A negative `artifact_bytes`, or a non-zero one with a
  // non-terminal `to`: InvalidArgument ("invalid_transition"). Every other
  // terminal move (Insert of a terminal record, RequeueExpired) records
  // artifact_bytes 0 and its output_bytes the same way.
  virtual Status Transition(const std::string& id, store::JobStatus to, int64_t at_ms,
                            const std::string& result_json = "",
                            const std::string& image_digest = "", const std::string& owner = "",
                            int64_t artifact_bytes = 0) = 0;

  // Claims: a fleet's nodes share the queue through these three calls.
  //
  // Moves up to `max` (1..64) queued jobs of any tenant, oldest first
  // (created_at_ms, id), to running at `now_ms`, as Transition does
  // (started_at_ms, the running transition), owned by `node` (non-empty)
  // with a lease until now_ms + `lease_ms` (1..kMaxLeaseMs). Returns them
  // as stored after the move (whole records); none when nothing is queued.
  // Atomic per call; concurrent callers, in this process or on other nodes
  // sharing the data, never get the same job. Arguments out of range:
  // InvalidArgument ("invalid_claim").
  virtual StatusOr<std::vector<store::JobRecord>> Claim(const std::string& node, int max,
                                                        int64_t now_ms, int64_t lease_ms) = 0;

  // Extends to now_ms + `lease_ms` (1..kMaxLeaseMs) the lease of each of
  // `ids` that is still running and owned by `node`, even one that has
  // expired but was not requeued yet. Returns the ids it renewed, in the
  // order given, each once: a missing one was lost (requeued, ended,
  // cancelled or unknown) and `node` must stop that job. Arguments out of
  // range: InvalidArgument ("invalid_claim").
  virtual StatusOr<std::vector<std::string>> RenewLeases(const std::string& node,
                                                         const std::vector<std::string>& ids,
                                                         int64_t now_ms, int64_t lease_ms) = 0;

  // Every running job with an owner whose lease expired before `now_ms`
  // (lease_expires_at_ms < now_ms): if its attempt is below `max_attempts`
  // (>= 1) it goes back to queued (attempt + 1, owner and lease cleared,
  // transition appended); else it ends as error at now_ms with result_json
  // `interrupted_result_json`, its request redacted as for any terminal
  // move. Jobs without an owner (the single-node path) are never touched.
  // A server store skips rows another call holds locked (the next sweep
  // takes them). max_attempts < 1: InvalidArgument ("invalid_claim").
  virtual StatusOr<ExpiredLeases> RequeueExpired(int64_t now_ms, int max_attempts,
                                                 const std::string& interrupted_result_json) = 0;

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

  // The sums over `tenant`'s terminal jobs (queued and running ones never
  // count). Reads one row: the store keeps each tenant's sums in the
  // transaction of every write that adds, ends or deletes a job (whatever
  // the call: Insert, Transition, RequeueExpired, PurgeFinishedBefore,
  // PurgeBeyond), so the cost does not grow with the tenant's jobs.
  virtual StatusOr<store::Footprint> TenantFootprint(const std::string& tenant) = 0;

  // Deletes `tenant`'s terminal jobs, oldest first (finished_at_ms, then
  // id), until the sums of those left fit `bounds` (each sum at most its
  // bound); returns their ids oldest first, so that their files can be
  // removed too. Nothing when both sums fit (or neither is bounded); a job
  // that alone exceeds a bound is deleted too. A queued or running job is
  // never deleted, nor counted. Reads only the jobs it deletes (and at
  // most one batch more), oldest first by an index. The sums and the
  // delete are one transaction, serialized against every other PurgeBeyond
  // of the same tenant on the database (PostgreSQL: a transaction-scoped
  // advisory lock on the tenant; SQLite: its write lock): two nodes
  // purging at once delete each job once, never more than the bounds
  // require, and each id is returned by the one call that deleted it.
  virtual StatusOr<std::vector<std::string>> PurgeBeyond(const std::string& tenant,
                                                         const store::FootprintBounds& bounds) = 0;

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
