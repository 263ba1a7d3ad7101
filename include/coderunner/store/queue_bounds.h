// BoundedQueue: a job inserted only while the fleet's queue bounds allow it
// (a tier's max_queued per tenant, jobs.max_queued over all), counted in the
// job database itself and atomic against concurrent submissions on every
// node. The fleet's store implements it (PgJobStore: StoreParts::bounded;
// a single node bounds its own queue); fleet mode admits jobs through it
// (JobService).
#ifndef CODERUNNER_STORE_QUEUE_BOUNDS_H_
#define CODERUNNER_STORE_QUEUE_BOUNDS_H_

#include <cstdint>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"

namespace coderunner::store {

// InsertWithin's refusals (ResourceExhausted): the tenant's queued jobs
// reached its bound, or all queued jobs reached the total bound.
inline constexpr const char* kReasonTierQueueFull = "tier_queue_full";
inline constexpr const char* kReasonQueueFull = "queue_full";

// The bounds of one insert. Plain data; 0 (or less) means no bound.
struct QueueBounds {
  // The record's tenant's queued jobs must stay below this.
  int64_t tenant_max = 0;
  // Counted as queued for the tenant on top of the stored ones (a batch's
  // cache hits so far, which are stored as finished). >= 0.
  int64_t tenant_extra = 0;
  // All tenants' queued jobs must stay below this.
  int64_t total_max = 0;
};

class BoundedQueue {
 public:
  virtual ~BoundedQueue() = default;

  // Inserts `record` (as JobStore::Insert, one record) only if the jobs of
  // status queued of record.tenant, plus bounds.tenant_extra, are fewer than
  // bounds.tenant_max, and all queued jobs fewer than bounds.total_max; the
  // count and the insert are one transaction, serialized against every other
  // InsertWithin on the database (PostgreSQL: a transaction-scoped advisory
  // lock, the whole queue's when bounds.total_max > 0, else the tenant's),
  // so N concurrent callers on any nodes never exceed a bound. The record itself may be terminal (a
  // cache hit): it is bounded the same way though it does not count once stored. Refusals:
  // ResourceExhausted kReasonTierQueueFull (checked first) or kReasonQueueFull, with a short
  // message the caller may replace; other failures as JobStore::Insert. Thread-safe.
  virtual Status InsertWithin(const JobRecord& record, const QueueBounds& bounds) = 0;
};

// The refusal for `tenant_queued` and `total_queued` queued jobs under
// `bounds`, or OK when the insert fits. Pure.
Status CheckQueueBounds(int64_t tenant_queued, int64_t total_queued, const QueueBounds& bounds);

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_QUEUE_BOUNDS_H_
