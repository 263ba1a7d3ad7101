// CompilingRunner: runs a compiled language's job as two steps, each in a
// container of its own, so each keeps its own limits.
//   1. The compile step (CompileStepOf): the language's `compile` command
//      under its compile_* limits, with the program and the request's files
//      but no stdin, no args and no volume. What it writes into /output is
//      the build.
//   2. The run: the job itself, its limits untouched, with the build placed
//      in its workspace as programs (0750), so `command` runs it.
// A build that fails (an exit code, a signal, its time or memory) ends the
// job unrun: kFailed with reason kReasonCompileError and the compiler's
// messages in RunResult::compile. Nothing the compile step leaves is
// trusted beyond its bytes: the build is read from the artifacts the inner
// runner collected (no symlink, no special file, within the artifact caps)
// and its directory removed. Jobs of interpreted languages pass straight
// through.
#ifndef CODERUNNER_ISOLATION_COMPILING_RUNNER_H_
#define CODERUNNER_ISOLATION_COMPILING_RUNNER_H_

#include <string>

#include "coderunner/isolation/job_runner.h"
#include "coderunner/isolation/job_spec.h"

namespace coderunner::isolation {

// Appended to a job's id to name its compile step (container, workspace
// and /output).
inline constexpr char kCompileStepSuffix[] = "-compile";

// The compile step of `job`, whose language has a compile command. Pure.
JobSpec CompileStepOf(const JobSpec& job);

// Thread-safe as the runner it wraps, which must outlive it.
class CompilingRunner : public JobRunner {
 public:
  // `artifacts_root`: where `inner` leaves each job's /output
  // (RunnerOptions::artifacts_root). Empty: compiled languages cannot run
  // (their jobs end kError, reason "compile_unavailable").
  CompilingRunner(JobRunner& inner, std::string artifacts_root);

  StatusOr<RunResult> Run(const JobSpec& job, const RunHooks& hooks) override;

 private:
  // The build left by `step` (its /output, collected), as the run's files.
  StatusOr<std::vector<InputFile>> TakeBuild(const JobSpec& step, const RunResult& compiled);

  JobRunner& inner_;
  std::string artifacts_root_;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_COMPILING_RUNNER_H_
