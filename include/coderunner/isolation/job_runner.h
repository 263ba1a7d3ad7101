// JobRunner: what the job executor runs each job through, whatever runs it
// (a fresh container, or a host process in code_runner.runtime: native).
#ifndef CODERUNNER_ISOLATION_JOB_RUNNER_H_
#define CODERUNNER_ISOLATION_JOB_RUNNER_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/engine/stream_demux.h"
#include "coderunner/isolation/cancel_token.h"
#include "coderunner/isolation/job_spec.h"

namespace coderunner::isolation {

// Optional observers and controls for one Run.
struct RunHooks {
  // Receives output as it is produced, only the bytes within the job's cap.
  // Called on the runner's reading thread; must be quick and must not block.
  std::function<void(engine::StreamId, std::string_view)> on_output;
  // Cancel() stops the job; the result's status is then kCancelled.
  CancelToken* cancel = nullptr;
};

// One case of a series (JobRunner::RunSeries): what differs from the
// program's own job.
struct SeriesCase {
  std::string id;
  std::string stdin_data;
  std::vector<std::string> args;
  Limits limits;
};

// Takes each case's result of a series as it ends, and says whether to run
// the next.
using SeriesGoOn = std::function<bool(RunResult result)>;

// Implementations: ContainerRunner (container_runner.h) and NativeRunner
// (native_runner.h). Thread-safe: any number of Run calls may proceed at
// once.
class JobRunner {
 public:
  virtual ~JobRunner() = default;

  // Runs `job`. A job that was attempted always yields a RunResult, with
  // status kError and `error` set for the runner's own failures. Returns a
  // non-OK Status only when the job could not be attempted at all (the
  // engine was unreachable: Unavailable), so the caller may retry or
  // answer 503.
  virtual StatusOr<RunResult> Run(const JobSpec& job, const RunHooks& hooks) = 0;

  // Runs `cases` of `program` (its language, code, files and policy; each
  // case a fresh process with its own id, stdin, args and limits) in turn,
  // handing each result to `go_on` as the case ends, and stops when it
  // says so. Returns how many cases ran, from the first. A runner may run
  // them all in one container (ContainerRunner), or fewer than `go_on`
  // asked for, none at all, when it cannot go on: the caller then runs the
  // rest with Run, each in a container of its own. The default has no
  // series path.
  virtual size_t RunSeries(const JobSpec& program, const std::vector<SeriesCase>& cases,
                           const RunHooks& hooks, const SeriesGoOn& go_on) {
    (void)program, (void)cases, (void)hooks, (void)go_on;
    return 0;
  }
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_JOB_RUNNER_H_
