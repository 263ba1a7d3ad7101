// LocalDispatch: the JobDispatch of one node. Accepted jobs wait in the
// node's own JobQueue (in memory; the store keeps them durable), and a
// restart recovers from the store in two phases (recovery.h). Private to
// src/jobs: a JobService without a dispatch of its own makes one.
#ifndef CODERUNNER_SRC_JOBS_LOCAL_DISPATCH_H_
#define CODERUNNER_SRC_JOBS_LOCAL_DISPATCH_H_

#include <memory>
#include <string>
#include <vector>

#include "coderunner/common/metrics.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/isolation/warm_pool.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_dispatch.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/store/job_store.h"

namespace coderunner::jobs {

// Non-owning: every pointee outlives the dispatch and is thread-safe; only
// `pool` may be null.
struct LocalDispatchDeps {
  // instance, workspace_dir, artifacts, tiers, max_limits (recovery).
  const config::Config* config = nullptr;
  store::JobStore* store = nullptr;
  JobQueue* queue = nullptr;  // Where accepted jobs wait for a worker.
  JobHub* hub = nullptr;      // Each non-terminal job's channel.
  MetricsRegistry* metrics = nullptr;
  engine::ContainerClient* containers = nullptr;  // Interrupted jobs' and orphans'.
  const isolation::WarmPool* pool = nullptr;      // Its containers are no orphans.
};

std::unique_ptr<JobDispatch> NewLocalDispatch(LocalDispatchDeps deps);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_SRC_JOBS_LOCAL_DISPATCH_H_
