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

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/isolation/job_runner.h"
#include "coderunner/isolation/job_spec.h"

namespace coderunner::isolation {

// Appended to a job's id to name its compile step (container, workspace
// and /output).
inline constexpr char kCompileStepSuffix[] = "-compile";

// The compile step of `job`, whose language has a compile command. Pure.
JobSpec CompileStepOf(const JobSpec& job);

// The id of the job a container, workspace or /output directory named
// `step_id` belongs to: the job's own id, or that of the job whose compile
// step it is ("job-1-compile" -> "job-1"). Pure.
std::string OwningJobId(std::string_view step_id);

// A compiled language's program after its compile step (CompilingRunner::
// Build): either the build, or the result the job ends with unrun.
struct BuiltProgram {
  // The build, as files of the run step (programs, 0750). Empty when the
  // program did not build (then `unbuilt` is set).
  std::vector<InputFile> files;
  CompileOutcome outcome;
  // The job's result when it did not build: kFailed with reason
  // kReasonCompileError, or the step's own kCancelled or kError.
  std::optional<RunResult> unbuilt;
};

// `job` with `build` placed in its workspace, ready for the inner runner.
// Pure.
JobSpec RunStepOf(const JobSpec& job, const BuiltProgram& build);

// Thread-safe as the runner it wraps, which must outlive it.
class CompilingRunner : public JobRunner {
 public:
  // `artifacts_root`: where `inner` leaves each job's /output
  // (RunnerOptions::artifacts_root). Empty: compiled languages cannot run
  // (their jobs end kError, reason "compile_unavailable").
  CompilingRunner(JobRunner& inner, std::string artifacts_root);

  StatusOr<RunResult> Run(const JobSpec& job, const RunHooks& hooks) override;
  // The inner runner's series, for a program that compiles no more (built
  // already: RunStepOf, or an interpreted language); none otherwise.
  size_t RunSeries(const JobSpec& program, const std::vector<SeriesCase>& cases,
                   const RunHooks& hooks, const SeriesGoOn& go_on) override;

  // The compile step of `job` (its language compiles), run with `hooks`'
  // cancel token. Errors are the inner runner's (an engine it cannot reach).
  StatusOr<BuiltProgram> Build(const JobSpec& job, const RunHooks& hooks);

  // Removes what the inner runner collected from the /output of job `id`
  // (a step whose artifacts nobody reads).
  void DiscardOutput(const std::string& id) const;

 private:
  // The build left by `step` (its /output, collected), as the run's files.
  StatusOr<std::vector<InputFile>> TakeBuild(const JobSpec& step, const RunResult& compiled);

  JobRunner& inner_;
  std::string artifacts_root_;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_COMPILING_RUNNER_H_
