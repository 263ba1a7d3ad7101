// Crash recovery: brings every non-terminal job back under control at startup.
#ifndef CODERUNNER_JOBS_RECOVERY_H_
#define CODERUNNER_JOBS_RECOVERY_H_

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/isolation/warm_pool.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/tenant_footprint.h"
#include "coderunner/store/job_store.h"

namespace coderunner::jobs {

// What crash recovery works with. Non-owning: every pointee outlives the
// calls and is thread-safe. The required ones must not be null.
struct RecoveryDeps {
  // instance, workspace_dir, artifacts (recovered results), tiers,
  // max_limits.output_bytes (each channel's cap), languages.
  const config::Config* config = nullptr;
  store::JobStore* store = nullptr;
  JobQueue* queue = nullptr;  // Recovered jobs are pushed here.
  JobHub* hub = nullptr;      // Every non-terminal job gets its channel.
  engine::ContainerClient* containers = nullptr;
  // The warm pool, whose containers are not orphans; nullptr when none.
  const isolation::WarmPool* pool = nullptr;
  // Keeps the tenant of each job recovery ends within its tier's bounds;
  // nullptr: only retention by age applies.
  const TenantFootprint* footprint = nullptr;
};

struct RecoveryReport {
  int requeued_queued = 0;     // Were queued: queued again.
  int recovered_finished = 0;  // Were running, container had exited: result taken from it.
  int requeued_running = 0;    // Were running, container alive or gone: killed, re-queued once.
  int interrupted = 0;         // Were running for the second time: error/interrupted.
  int orphans_removed = 0;     // Containers of this instance no live job owns.
};

// Runs before any worker starts. For each job the store says is queued or
// running (oldest first):
//   - queued: re-enqueued (past the queue bound if need be: nothing accepted
//     is ever dropped).
//   - running, with an exited container (found by its io.coderunner.job
//     label): the exit code, OOM flag and image digest are taken from the
//     container, which is then removed. The output is lost (jobs stream
//     output, the engine keeps no logs) and the result says so with
//     "recovered": true and "output_lost": true.
//   - running, with the container still running or missing: the container
//     is killed and removed, and the job is re-queued once (attempt 2); a
//     job interrupted on its second attempt ends as error with code
//     "interrupted".
// Every other container labelled with this instance is removed. Unavailable
// if the store or engine cannot be read (the caller may retry).
StatusOr<RecoveryReport> RecoverJobs(const RecoveryDeps& deps);

// The two phases RecoverJobs runs, for a service that must start serving
// while the engine may still be down:
//
// Phase 1, store only, before the HTTP server accepts anything: queued jobs
// are enqueued, and every non-terminal job gets its channel (so /wait blocks
// properly from the first request). Returns the jobs that were running (the
// interrupted ones); they stay "running" until phase 2.
StatusOr<std::vector<store::JobRecord>> RecoverQueued(const RecoveryDeps& deps,
                                                      RecoveryReport* report);

// Phase 2, needs the engine, may run while workers already run new jobs:
// settles each interrupted job as described above, removing its container
// and then its workspace (never the other way round: a live container must
// not lose its files). Containers of this instance whose job is neither
// interrupted nor in `active()` (read after listing) are orphans and are
// removed. Unavailable if the engine cannot be reached (retry later; nothing
// was changed for the jobs not yet settled).
Status RecoverInterrupted(const RecoveryDeps& deps, std::vector<store::JobRecord>& interrupted,
                          const std::function<std::set<std::string>()>& active,
                          RecoveryReport* report);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_RECOVERY_H_
