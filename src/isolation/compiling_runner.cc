#include "coderunner/isolation/compiling_runner.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "coderunner/common/utf8.h"
#include "coderunner/isolation/safe_tree.h"
#include "coderunner/isolation/workspace.h"

namespace coderunner::isolation {
namespace {

// A compiler driver starts a few processes (cc1plus, as, ld), and some
// toolchains many threads: the step gets at least this many pids.
constexpr int64_t kCompileStepMinPids = 64;
// The compiler's messages kept in the error's message (all of them are in
// RunResult::compile): enough for the first errors.
constexpr size_t kCompileMessageBytes = 2048;
constexpr char kReasonCompileUnavailable[] = "compile_unavailable";

// The step's headline: what stopped the build.
std::string CompileFailureHeadline(const RunResult& step, const JobSpec& compile) {
  switch (step.status) {
    case RunStatus::kTimeout:
      return "the program did not compile: the compiler ran past its " +
             std::to_string(compile.limits.timeout_ms) + " ms";
    case RunStatus::kOom:
      return "the program did not compile: the compiler ran out of its " +
             std::to_string(compile.limits.memory_bytes) + " bytes of memory";
    default:
      break;
  }
  if (!step.error.ok()) return "the program did not compile: " + step.error.message();
  if (step.signal > 0) {
    return "the program did not compile: signal " + std::to_string(step.signal) +
           " ended the compiler";
  }
  return "the program did not compile (exit code " + std::to_string(step.exit_code) + ")";
}

CompileOutcome OutcomeOf(const RunResult& step) {
  CompileOutcome out;
  out.status = step.status;
  out.exit_code = step.exit_code;
  out.signal = step.signal;
  out.output = step.stdout_data + step.stderr_data;
  out.output_truncated = step.stdout_truncated || step.stderr_truncated;
  out.metrics = step.metrics;
  return out;
}

// The job's result when its build failed: it never ran.
RunResult Unbuilt(const RunResult& step, std::string headline) {
  RunResult r;
  r.status = RunStatus::kFailed;
  r.image = step.image;
  r.image_digest = step.image_digest;
  r.runtime = step.runtime;
  r.metrics.wall_ms = step.metrics.wall_ms;
  r.compile = OutcomeOf(step);
  std::string message = std::move(headline);
  if (!r.compile->output.empty()) {
    // Cut where a character ends: GCC quotes names in ‘’ (three bytes each).
    std::string_view first = std::string_view(r.compile->output).substr(0, kCompileMessageBytes);
    if (first.size() < r.compile->output.size()) first = first.substr(0, CompleteUtf8Prefix(first));
    message += ":\n" + std::string(first);
  }
  r.error = FailedPreconditionError(std::move(message), kReasonCompileError);
  return r;
}

}  // namespace

std::string OwningJobId(std::string_view step_id) {
  const std::string_view suffix = kCompileStepSuffix;
  if (step_id.size() > suffix.size() && step_id.ends_with(suffix)) {
    step_id.remove_suffix(suffix.size());
  }
  return std::string(step_id);
}

JobSpec CompileStepOf(const JobSpec& job) {
  JobSpec step;
  step.id = job.id + kCompileStepSuffix;
  step.language = job.language;
  step.language.command = job.language.compile;
  step.language.compile.clear();
  step.code = job.code;
  step.files = job.files;
  step.limits = job.limits;
  step.limits.timeout_ms = job.language.compile_timeout_ms;
  step.limits.cpu_ms = job.language.compile_timeout_ms;
  step.limits.memory_bytes = job.language.compile_memory_bytes;
  step.limits.output_bytes = job.language.compile_output_bytes;
  step.limits.pids = std::max(job.limits.pids, kCompileStepMinPids);
  step.runtime = job.runtime;
  return step;
}

CompilingRunner::CompilingRunner(JobRunner& inner, std::string artifacts_root)
    : inner_(inner), artifacts_root_(std::move(artifacts_root)) {}

JobSpec RunStepOf(const JobSpec& job, const BuiltProgram& build) {
  JobSpec run = job;
  run.language.compile.clear();
  for (const InputFile& f : build.files) run.files.push_back(f);
  return run;
}

size_t CompilingRunner::RunSeries(const JobSpec& program, const std::vector<SeriesCase>& cases,
                                  const RunHooks& hooks, const SeriesGoOn& go_on) {
  if (!program.language.compile.empty()) return 0;
  return inner_.RunSeries(program, cases, hooks, go_on);
}

StatusOr<RunResult> CompilingRunner::Run(const JobSpec& job, const RunHooks& hooks) {
  if (job.language.compile.empty()) return inner_.Run(job, hooks);
  CR_ASSIGN_OR_RETURN(BuiltProgram build, Build(job, hooks));
  if (build.unbuilt) return std::move(*build.unbuilt);
  CR_ASSIGN_OR_RETURN(RunResult result, inner_.Run(RunStepOf(job, build), hooks));
  result.compile = std::move(build.outcome);
  result.metrics.wall_ms += result.compile->metrics.wall_ms;
  return result;
}

StatusOr<BuiltProgram> CompilingRunner::Build(const JobSpec& job, const RunHooks& hooks) {
  BuiltProgram out;
  if (artifacts_root_.empty()) {
    RunResult r;
    r.error = FailedPreconditionError(
        "language " + job.language.name + " compiles, which needs artifacts.dir",
        kReasonCompileUnavailable);
    out.unbuilt = std::move(r);
    return out;
  }
  const JobSpec step = CompileStepOf(job);
  RunHooks step_hooks;
  step_hooks.cancel = hooks.cancel;
  CR_ASSIGN_OR_RETURN(RunResult compiled, inner_.Run(step, step_hooks));
  out.outcome = OutcomeOf(compiled);
  if (compiled.status == RunStatus::kCancelled || compiled.status == RunStatus::kError) {
    DiscardOutput(step.id);
    compiled.compile = out.outcome;
    compiled.artifacts.clear();
    compiled.artifacts_skipped.clear();
    out.unbuilt = std::move(compiled);
    return out;
  }
  if (compiled.status != RunStatus::kSucceeded) {
    DiscardOutput(step.id);
    out.unbuilt = Unbuilt(compiled, CompileFailureHeadline(compiled, step));
    return out;
  }
  StatusOr<std::vector<InputFile>> build = TakeBuild(step, compiled);
  if (!build.ok()) {
    out.unbuilt = Unbuilt(compiled, "the program did not compile: " + build.status().message());
    return out;
  }
  out.files = std::move(*build);
  return out;
}

void CompilingRunner::DiscardOutput(const std::string& id) const {
  if (!artifacts_root_.empty()) (void)RemoveTree(artifacts_root_ + "/" + id);
}

StatusOr<std::vector<InputFile>> CompilingRunner::TakeBuild(const JobSpec& step,
                                                            const RunResult& compiled) {
  const std::string dir = artifacts_root_ + "/" + step.id;
  std::vector<InputFile> files;
  Status taken = OkStatus();
  for (const Artifact& a : compiled.artifacts) {
    StatusOr<UniqueFd> fd = OpenTreeFile(dir, a.path);
    StatusOr<std::string> bytes =
        fd.ok() ? ReadAllFd(fd->get(), a.size) : StatusOr<std::string>(fd.status());
    if (!bytes.ok()) {
      taken = bytes.status();
      break;
    }
    files.push_back(InputFile{a.path, std::move(*bytes), /*executable=*/true});
  }
  (void)RemoveTree(dir);
  CR_RETURN_IF_ERROR(taken);
  if (!compiled.artifacts_skipped.empty()) {
    return FailedPreconditionError("its build in /output was not kept whole (" +
                                   compiled.artifacts_skipped.front().path + ": " +
                                   compiled.artifacts_skipped.front().reason + ")");
  }
  if (files.empty()) return FailedPreconditionError("the compiler wrote nothing into /output");
  return files;
}

}  // namespace coderunner::isolation
