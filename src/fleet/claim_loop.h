// ClaimLoop: in fleet mode (store.kind postgres) the store is the queue. A
// node claims queued jobs for its free worker slots, keeps the leases of
// the jobs it holds, and requeues the jobs of nodes gone silent. Private to
// src/fleet (FleetDispatch owns it).
#ifndef CODERUNNER_SRC_FLEET_CLAIM_LOOP_H_
#define CODERUNNER_SRC_FLEET_CLAIM_LOOP_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/config/config.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/store/job_notices.h"
#include "coderunner/store/job_store.h"

namespace coderunner::fleet {

// What a ClaimLoop works with. Non-owning: every pointee outlives the loop
// and is thread-safe; only `notices` may be null (nothing is told).
struct ClaimLoopDeps {
  // store.lease_ms, store.max_attempts, tiers (a tenant's max_running),
  // max_limits.output_bytes (a claimed job's channel cap).
  const config::Config* config = nullptr;
  store::JobStore* store = nullptr;
  jobs::JobQueue* queue = nullptr;              // Claimed jobs wait here for a worker.
  jobs::JobHub* hub = nullptr;                  // A claimed job gets a channel if it has none.
  const jobs::JobExecutor* executor = nullptr;  // The jobs running here (Active).
  store::JobNotices* notices = nullptr;
  std::string node = "";  // This node's name (config instance); non-empty.
  int slots = 1;          // Worker threads: jobs held here at most (>= 1).
};

// One thread: claims while fewer than `slots` jobs are held (claimed and
// not yet executed), and every lease_ms / 3 renews the leases of the held
// jobs (a job not renewed was lost: it is cancelled here) and requeues the
// expired ones of every node. It sleeps until Kick, Release or that timer.
// Thread-safe.
class ClaimLoop {
 public:
  explicit ClaimLoop(ClaimLoopDeps deps);
  ~ClaimLoop();  // Stop().

  // Starts the thread; a second call does nothing.
  void Start();
  // Stops and joins the thread; claims nothing after it returns.
  // Idempotent. Held jobs stay held (Drain requeues them).
  void Stop();
  // Wakes the loop to claim now (a local submit, a kQueued notice).
  void Kick();
  // Job `id` is no longer held here (executed, cancelled while it waited,
  // or requeued): frees its slot and wakes the loop. Unknown ids: nothing.
  void Release(const std::string& id);
  // The ids held now (claimed here and not released), in id order.
  std::vector<std::string> Held() const;

  // One round of the loop, for the thread and for tests: KeepLeases at
  // `now_ms` (ms since the epoch), then ClaimFree. Both log store errors
  // and go on (the next round tries again).
  void KeepLeases(int64_t now_ms);
  // Claims up to the free slots; returns how many it claimed.
  int ClaimFree(int64_t now_ms);

 private:
  void Loop();
  // Held job `id` lost its lease: cancel it here (a waiting one leaves the
  // queue; a running one's token is cancelled, its result is fenced).
  void Lost(const std::string& id);
  void Sweep(int64_t now_ms);
  void Publish(store::JobNotice::Kind kind, const std::string& id) const;

  const ClaimLoopDeps deps_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> held_;  // Guarded by mu_.
  bool kicked_ = false;         // Guarded by mu_.
  bool stopping_ = false;       // Guarded by mu_.
  std::thread thread_;
};

// The result JSON of a job that ran out of attempts because the nodes
// running it went silent (RequeueExpired's interrupted_result_json).
std::string LeaseExpiredResultJson();

}  // namespace coderunner::fleet

#endif  // CODERUNNER_SRC_FLEET_CLAIM_LOOP_H_
