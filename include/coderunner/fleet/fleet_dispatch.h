// FleetDispatch: the JobDispatch of a node in a fleet (store.kind
// postgres). The store is the queue the nodes share: a node claims queued
// jobs for its free workers (ClaimLoop), fences its transitions by its
// name, tells the other nodes through JobNotices (queued, changed, cancel),
// follows the live output of jobs that run elsewhere (OutputRelay), and on
// a restart requeues the jobs it was running.
#ifndef CODERUNNER_FLEET_FLEET_DISPATCH_H_
#define CODERUNNER_FLEET_FLEET_DISPATCH_H_

#include <memory>

#include "coderunner/common/metrics.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/isolation/warm_pool.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_dispatch.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/store/job_notices.h"
#include "coderunner/store/job_store.h"
#include "coderunner/store/queue_bounds.h"

namespace coderunner::fleet {

// Non-owning: every pointee outlives the dispatch and is thread-safe.
// `bounded`, `notices` and `pool` may be null.
struct FleetDispatchDeps {
  // instance (this node's name), store.lease_ms and max_attempts,
  // jobs.max_queued and max_concurrent, tiers, workspace_dir, max_limits.
  const config::Config* config = nullptr;
  store::JobStore* store = nullptr;
  // The fleet-wide bounds, counted in the store with the insert; nullptr:
  // the bounds of this node's queue only.
  store::BoundedQueue* bounded = nullptr;
  jobs::JobQueue* queue = nullptr;  // Claimed jobs wait here for a worker.
  jobs::JobHub* hub = nullptr;
  MetricsRegistry* metrics = nullptr;
  engine::ContainerClient* containers = nullptr;  // The orphan sweep at start.
  const isolation::WarmPool* pool = nullptr;
  // Wake-ups to and from the other nodes; nullptr: none are sent (the
  // nodes still claim on their lease_ms / 3 timer) and no output is relayed.
  store::JobNotices* notices = nullptr;
};

class FleetDispatch : public jobs::JobDispatch {
 public:
  // What the node's JobNotices subscriber calls for each notice (on its
  // thread; never blocks for long). kQueued: claim now. kCancel: a job
  // running here stops as a user cancel does. kChanged: a job waited on
  // here and not running here is re-read; terminal, its waiters get the
  // record's status and result; running, they are told once. kWatch: a job
  // running here sends its live output to the fleet. kOutput: live output
  // of a job followed here and running elsewhere goes into its channel.
  virtual void OnNotice(const store::JobNotice& notice) = 0;
  // Notices may have been lost: every job waited on here and not running
  // here is re-read as for kChanged, and the node claims now.
  virtual void OnResync() = 0;
};

std::unique_ptr<FleetDispatch> NewFleetDispatch(FleetDispatchDeps deps);

}  // namespace coderunner::fleet

#endif  // CODERUNNER_FLEET_FLEET_DISPATCH_H_
