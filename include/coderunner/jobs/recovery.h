// Crash recovery: brings every non-terminal job back under control at startup.
#ifndef CODERUNNER_JOBS_RECOVERY_H_
#define CODERUNNER_JOBS_RECOVERY_H_

#include "coderunner/common/status.h"
#include "coderunner/jobs/jobs_context.h"

namespace coderunner::jobs {

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
StatusOr<RecoveryReport> RecoverJobs(const JobsContext& ctx);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_RECOVERY_H_
