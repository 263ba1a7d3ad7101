// JobQueue: the bounded queue of accepted job ids waiting for a worker.
#ifndef CODERUNNER_JOBS_JOB_QUEUE_H_
#define CODERUNNER_JOBS_JOB_QUEUE_H_

#include <condition_variable>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace coderunner::jobs {

// Holds ids only (records live in the store), so memory stays small however
// many jobs wait. One FIFO per tenant, served round-robin, so one tenant's
// flood cannot starve the others. Capacity is reserved before a job is
// stored and consumed when it is pushed, so accepting never overshoots.
// Thread-safe.
class JobQueue {
 public:
  explicit JobQueue(size_t capacity) : capacity_(capacity) {}

  // Reserves room for `n` jobs; false (nothing reserved) if it would exceed
  // the capacity.
  bool Reserve(size_t n);
  // Gives back `n` unused reservations.
  void Release(size_t n);
  // Enqueues `id` for `tenant`, consuming one reservation. `max_running`
  // (> 0) caps how many of the tenant's jobs may run at once (its tier);
  // 0 leaves it as it was (unlimited by default).
  void PushReserved(const std::string& tenant, const std::string& id, int max_running = 0);
  // Enqueues without a reservation, even past capacity (crash recovery).
  void PushForce(const std::string& tenant, const std::string& id, int max_running = 0);
  // Removes a queued id (a cancelled job); true if it was queued.
  bool Remove(const std::string& id);

  struct Entry {
    std::string tenant;
    std::string id;
  };
  // Blocks until a job of a tenant below its running cap is available
  // (tenants served round-robin) or the queue is closed and empty
  // (nullopt). The job counts as running for its tenant until Done().
  std::optional<Entry> PopEntry();
  // PopEntry's id (for callers that never call Done and set no caps).
  std::optional<std::string> Pop();
  // The job popped for `tenant` has finished; frees its running slot.
  void Done(const std::string& tenant);
  // Jobs of `tenant` waiting now.
  size_t TenantQueued(const std::string& tenant) const;
  // Wakes every Pop; they return nullopt once nothing is left... or at once
  // if `drop_pending` (pending ids stay durable in the store). Returns the
  // ids dropped (empty unless `drop_pending`), in no particular order.
  std::vector<std::string> Close(bool drop_pending);

  size_t size() const;  // Queued ids.
  // Threads blocked in PopEntry now. For tests: a Pop counts here only
  // while it waits on the condition variable (one that finds a job, or the
  // queue closed and empty, at once never does), so a test that sees it
  // counted before it pushes or closes knows the wake-up is what returns it.
  size_t blocked_pops() const;
  size_t capacity() const { return capacity_; }

 private:
  void PushLocked(const std::string& tenant, const std::string& id, int max_running);
  // The first tenant in rotation below its running cap, or end().
  std::list<std::string>::iterator EligibleLocked();

  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::deque<std::string>> by_tenant_;
  std::list<std::string> rotation_;         // Tenants with queued ids, in serving order.
  std::map<std::string, int> running_;      // Popped and not yet Done, per tenant.
  std::map<std::string, int> max_running_;  // Per-tenant cap; absent or 0 = none.
  size_t size_ = 0;
  size_t reserved_ = 0;
  size_t blocked_pops_ = 0;  // See blocked_pops().
  bool closed_ = false;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_QUEUE_H_
