// What a finished run becomes: the RunResult of ContainerRunner's cold and
// warm paths (container_runner.cc, pooled_run.cc), built in run_outcome.cc
// from the supervision, the engine's view and coderunner-init's trailer.
#ifndef CODERUNNER_ISOLATION_RUN_OUTCOME_H_
#define CODERUNNER_ISOLATION_RUN_OUTCOME_H_

#include <chrono>
#include <cstdint>

#include "coderunner/common/status.h"
#include "coderunner/isolation/job_spec.h"

namespace coderunner::isolation {

// Milliseconds from `t` to now. Thread-safe.
int64_t MsSince(std::chrono::steady_clock::time_point t);

// A kError result for `job` carrying `error` (our fault or the engine's,
// never the program's), with the job's image. Pure.
RunResult ErrorResult(const JobSpec& job, Status error);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_RUN_OUTCOME_H_
