// ContainerRunner's outcome: how a run that ended becomes its RunResult.
#include "run_outcome.h"

#include <signal.h>

#include <optional>

#include "coderunner/engine/transport.h"
#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/isolation/init_trailer.h"
#include "coderunner/isolation/mechanism.h"

namespace coderunner::isolation {
namespace {

constexpr int64_t kMicrosPerMilli = 1000;

// The error a broken bound on /output becomes (`violation` is what
// coderunner-init reported).
Status OutputError(const JobSpec& job, const OutputMount& out, const std::string& violation,
                   bool rolled_back) {
  if (out.is_volume) {
    std::string undo = rolled_back ? "; the run's writes were rolled back"
                                   : "; rolling back the run's writes failed";
    if (violation == "too_large") {
      return FailedPreconditionError("the job wrote more than volume " + job.volume.id +
                                         " holds (size_bytes " + std::to_string(out.max_bytes) +
                                         "); it was stopped" + undo,
                                     "volume_quota_exceeded");
    }
    if (violation == "too_many_files") {
      return FailedPreconditionError("the job created more than " +
                                         std::to_string(out.max_entries) + " entries in volume " +
                                         job.volume.id + "; it was stopped" + undo,
                                     "volume_too_many_files");
    }
    return FailedPreconditionError(
        "volume " + job.volume.id + " became unreadable (" + violation + "); stopped" + undo,
        "volume_" + violation);
  }
  if (violation == "file_too_large") {
    return FailedPreconditionError("a file in /output grew past the per-file artifact cap of " +
                                       std::to_string(out.max_file_bytes) +
                                       " bytes; the job was stopped",
                                   kReasonArtifactTooLarge);
  }
  if (violation == "too_large") {
    return FailedPreconditionError("files in /output grew past the artifact total cap of " +
                                       std::to_string(out.max_bytes) +
                                       " bytes; the job was stopped",
                                   "artifacts_too_large");
  }
  if (violation == "too_many_files") {
    return FailedPreconditionError("the job created more than " + std::to_string(out.max_entries) +
                                       " entries in /output; it was stopped",
                                   "too_many_artifacts");
  }
  return FailedPreconditionError("/output became unusable (" + violation + "); the job was stopped",
                                 "output_" + violation);
}

// The error a job that never started becomes: coderunner-init's
// `start_error` and its own explanation, the last line it wrote before the
// trailer. A fault of the service or the engine, never of the program.
Status StartError(const std::string& what, std::string_view stderr_tail) {
  while (!stderr_tail.empty() && stderr_tail.back() == '\n') stderr_tail.remove_suffix(1);
  size_t nl = stderr_tail.rfind('\n');
  std::string said(nl == std::string_view::npos ? stderr_tail : stderr_tail.substr(nl + 1));
  if (what == "policy") {
    return FailedPreconditionError("coderunner-init refused to run the job: " + said,
                                   kReasonPolicyNotApplied);
  }
  return InternalError("the job could not be started (" + what + "): " + said, "job_start_failed");
}

// What broke a bound of /output: the service's own finding (its watch, or
// its measurement once the job was over), else what init reported.
struct OutputFinding {
  std::string violation;  // "" none.
  bool rolled_back = false;
  bool by_service = false;  // The service found it (and may have killed the container).
};

OutputFinding FindingOf(const std::string& service_violation, bool service_rolled_back,
                        const std::optional<InitTrailer>& trailer) {
  if (!service_violation.empty()) {
    const bool init_undid = trailer && trailer->output_rolled_back;
    return {service_violation, service_rolled_back || init_undid, true};
  }
  if (trailer && !trailer->output_violation.empty()) {
    return {trailer->output_violation, trailer->output_rolled_back, false};
  }
  return {};
}

// Sets `result`'s exit code, signal, metrics and status from init's
// `trailer` when there is one, else from the engine's `state`. `gvisor`:
// the job ran under runsc.
void ApplyExit(const JobSpec& job, const OutputMount& output, const engine::ContainerState& state,
               const std::optional<InitTrailer>& trailer, const OutputFinding& broken,
               bool timed_out, bool gvisor, RunResult& result) {
  // The service's deadline passed, yet init saw the program end on its own
  // within its time: the wall clock went to the engine (a stall between the
  // container and the service), not to the program.
  if (timed_out && trailer && !trailer->stopped &&
      trailer->wall_us <= job.limits.timeout_ms * kMicrosPerMilli) {
    timed_out = false;
  }
  result.exit_code = trailer ? trailer->exit_code : state.exit_code;
  result.signal = trailer ? trailer->signal : (state.exit_code > 128 ? state.exit_code - 128 : 0);
  if (timed_out) {
    // Our kill ended PID 1 before it could report.
    result.signal = SIGKILL;
    result.exit_code = 128 + SIGKILL;
  }
  if (trailer && trailer->cpu_us >= 0) result.metrics.cpu_ms = trailer->cpu_us / 1000;
  if (trailer && trailer->memory_peak_bytes >= 0) {
    result.metrics.memory_peak_bytes = trailer->memory_peak_bytes;
  }

  // Under gVisor the host's OOM killer ends the whole sandbox, init with
  // it, so no trailer comes, and the engine's OOMKilled flag races with the
  // exit and is sometimes false. Nothing else SIGKILLs a gVisor sandbox
  // unseen: our own kills are a deadline (timed_out) or a cancel.
  // A kill by the service's /output watch is no OOM either.
  bool sandbox_killed =
      gvisor && !trailer && !timed_out && !broken.by_service && result.signal == SIGKILL;
  bool oom = state.oom_killed || (trailer && trailer->oom_kills > 0) || sandbox_killed;
  bool cpu_exceeded =
      result.signal == SIGXCPU || (result.signal == SIGKILL && trailer && trailer->cpu_us >= 0 &&
                                   trailer->cpu_us / 1000 >= job.limits.cpu_ms);
  if (trailer && result.output_bytes < 0) {
    result.output_bytes =
        trailer->output_used_bytes >= 0 ? trailer->output_used_bytes : trailer->output_bytes;
  }
  if (timed_out || cpu_exceeded) {
    result.status = RunStatus::kTimeout;
  } else if (broken.by_service || (!oom && !broken.violation.empty())) {
    // The service's finding comes first: its watch kills the container,
    // which can look like an OOM kill from outside.
    result.status = RunStatus::kFailed;
    result.error = OutputError(job, output, broken.violation, broken.rolled_back);
  } else if (oom) {
    result.status = RunStatus::kOom;
  } else if (result.exit_code == 0) {
    result.status = RunStatus::kSucceeded;
  } else {
    result.status = RunStatus::kFailed;
  }
}

}  // namespace

int64_t MsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t)
      .count();
}

RunResult ErrorResult(const JobSpec& job, Status error) {
  RunResult r;
  r.status = RunStatus::kError;
  r.image = job.language.image;
  r.error = std::move(error);
  return r;
}

RunResult ContainerRunner::BuildResult(const JobSpec& job, const OutputMount& output, JobOutput& io,
                                       const Finished& f, Clock::time_point t0) {
  const Supervised& sv = f.sv;
  if (sv.cancelled) {
    RunResult r = ErrorResult(job, OkStatus());
    r.status = RunStatus::kCancelled;
    r.image_digest = f.image_digest;
    r.stdout_truncated = io.out().truncated();
    r.stderr_truncated = io.err().truncated();
    r.stdout_data = io.out().TakeKept();
    r.stderr_data = io.err().TakeKept();
    r.metrics.wall_ms = MsSince(t0);
    return r;
  }
  Status failure = sv.failure;
  if (failure.ok() && !f.stream_done) {
    failure = InternalError("container output did not close after kill", "stream_stuck");
  }
  if (failure.ok() && !f.stream_status.ok() && !sv.timed_out) failure = f.stream_status;
  if (failure.ok() && !f.inspected.ok()) failure = f.inspected;
  if (!failure.ok()) {
    if (failure.code() == StatusCode::kUnavailable &&
        failure.reason() == engine::kReasonEngineUnavailable) {
      failure = UnavailableError(failure.message(), engine::kReasonEngineUnavailable);
    }
    RunResult r = ErrorResult(job, failure);
    r.metrics.wall_ms = MsSince(t0);
    return r;
  }

  CappedOutput& out = io.out();
  CappedOutput& err = io.err();
  std::optional<InitTrailer> trailer = ParseInitTrailer(err.tail());
  if (trailer && trailer->eof != f.nonce) trailer.reset();  // Printed by the job.
  if (trailer) err.DropSuffix(trailer->length);
  if (trailer && !trailer->start_error.empty()) {
    RunResult r = ErrorResult(job, StartError(trailer->start_error, err.tail()));
    r.image_digest = f.image_digest;
    r.metrics.wall_ms = MsSince(t0);
    return r;
  }

  RunResult result;
  result.reported_by_init = trailer.has_value();
  result.image = job.language.image;
  result.image_digest = f.image_digest;
  result.stdout_truncated = out.truncated();
  result.stderr_truncated = err.truncated();
  // Moved, not copied: up to 1 MiB each (the RSS budget while a job floods).
  result.stdout_data = out.TakeKept();
  result.stderr_data = err.TakeKept();
  result.metrics.run_ms =
      trailer ? trailer->wall_us / 1000
              : std::chrono::duration_cast<std::chrono::milliseconds>(sv.run_end - sv.run_start)
                    .count();
  // What the service measured at the end, not what the job's init said.
  result.output_bytes = f.verdict.used_bytes;
  const OutputFinding broken = FindingOf(f.verdict.violation, f.verdict.rolled_back, trailer);
  ApplyExit(job, output, f.state, trailer, broken, sv.timed_out,
            policy_.RuntimeOf(job) == kGvisorRuntime, result);
  return result;
}

}  // namespace coderunner::isolation
