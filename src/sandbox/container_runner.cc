#include "coderunner/sandbox/container_runner.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "coderunner/engine/stream_demux.h"
#include "coderunner/sandbox/artifacts.h"
#include "coderunner/sandbox/capped_output.h"
#include "coderunner/sandbox/init_trailer.h"
#include "coderunner/sandbox/workspace.h"

namespace coderunner::sandbox {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// The attach stream runs on its own thread; the job's thread watches the
// deadline. This is the state they share.
struct AttachState {
  std::mutex mu;
  std::condition_variable cv;
  bool attached = false;
  bool done = false;
  bool cancel_requested = false;
  Status status;
};

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
                                   "artifact_too_large");
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

RunResult ErrorResult(const JobSpec& job, Status error) {
  RunResult r;
  r.status = RunStatus::kError;
  r.image = job.language.image;
  r.error = std::move(error);
  return r;
}

}  // namespace

StatusOr<RunResult> ContainerRunner::Run(const JobSpec& job, const RunHooks& hooks) {
  const auto t0 = Clock::now();
  OutputMount output;
  std::string output_dir;  // Host directory of a per-job /output.
  if (!job.volume.id.empty()) {
    if (job.volume.engine_name.empty()) {
      return ErrorResult(job, FailedPreconditionError("volume " + job.volume.id + " not resolved",
                                                      "volume_not_found"));
    }
    output = {job.volume.engine_name, true, job.volume.quota_bytes, 0, job.volume.max_files};
  } else if (!options_.artifacts_root.empty()) {
    auto dir = CreateOutputDir(options_.artifacts_root, job.id);
    if (!dir.ok()) return ErrorResult(job, dir.status());
    output_dir = *dir;
    const ArtifactCaps& caps = options_.artifact_caps;
    output = {output_dir, false, caps.max_total_bytes, caps.max_file_bytes, caps.max_files};
  }
  // Paths that end without a run leave no artifacts behind.
  auto discard_output = [&] {
    if (!output_dir.empty()) (void)RemoveTree(output_dir);
  };
  auto workspace = Workspace::Create(options_.workspace_root, job.id);
  if (!workspace.ok()) {
    discard_output();
    return ErrorResult(job, workspace.status());
  }
  Workspace& ws = **workspace;
  Status written = ws.WriteFile(job.language.file, job.code);
  if (written.ok() && !job.stdin_data.empty()) written = ws.WriteFile(kStdinFile, job.stdin_data);
  for (const auto& f : job.files) {
    if (!written.ok()) break;
    written = ws.WriteFile(f.path, f.content);
  }
  if (!written.ok()) {
    discard_output();
    return ErrorResult(job, written);
  }

  ContainerContext ctx{job, ws.path(), !job.stdin_data.empty(), output};
  auto id_or = containers_.Create(policy_.BuildCreateBody(ctx), "coderunner-" + job.id);
  if (!id_or.ok()) {
    discard_output();
    if (id_or.status().code() == StatusCode::kUnavailable) return id_or.status();
    Status s = id_or.status();
    if (s.code() == StatusCode::kNotFound) {
      s = FailedPreconditionError("image " + job.language.image + " for language " +
                                      job.language.name + " is missing: " + s.message() +
                                      " (build it with images/build.sh, or pull it)",
                                  "image_missing");
    }
    return ErrorResult(job, s);
  }
  const std::string id = *id_or;
  // The engine must run the job under the runtime it was configured for,
  // never silently under another (Podman 4.3 ignores HostConfig.Runtime).
  // Checked before the container ever starts.
  if (const std::string& runtime = policy_.RuntimeOf(job); !runtime.empty()) {
    Status applied = CheckRuntime(id, runtime);
    if (!applied.ok()) {
      Status removed = containers_.Remove(id);
      if (!removed.ok()) {
        spdlog::warn("job {}: remove container {}: {}", job.id, id, removed.ToString());
      }
      ws.Remove();
      // Unreachable engine: the job never ran, as when create fails.
      if (applied.code() == StatusCode::kUnavailable) return applied;
      RunResult r = ErrorResult(job, applied);
      r.metrics.wall_ms = MsSince(t0);
      return r;
    }
  }

  CappedOutput out(static_cast<size_t>(job.limits.output_bytes));
  CappedOutput err(static_cast<size_t>(job.limits.output_bytes));
  // Observers see stdout as it comes and stderr through a filter that
  // keeps coderunner-init's trailer out; each stream at most up to its cap.
  uint64_t shown[2] = {0, 0};
  auto show = [&](engine::StreamId stream, std::string_view bytes) {
    uint64_t& used = shown[stream == engine::StreamId::kStderr ? 1 : 0];
    uint64_t cap = static_cast<uint64_t>(job.limits.output_bytes);
    size_t room = used < cap ? static_cast<size_t>(cap - used) : 0;
    bytes = bytes.substr(0, std::min(room, bytes.size()));
    if (bytes.empty()) return;
    used += bytes.size();
    hooks.on_output(stream, bytes);
  };
  TrailerFilter live_stderr;
  engine::StreamDemuxer demux([&](engine::StreamId stream, std::string_view bytes) {
    if (hooks.on_output) {
      if (stream == engine::StreamId::kStderr) {
        live_stderr.Feed(bytes, [&](std::string_view b) { show(stream, b); });
      } else {
        show(stream, bytes);
      }
    }
    (stream == engine::StreamId::kStderr ? err : out).Append(bytes);
  });

  AttachState st;
  // The attach call's own bound: the job's wall time plus room to kill it.
  auto attach_bound = options_.attach_timeout + std::chrono::milliseconds(job.limits.timeout_ms) +
                      options_.kill_grace;
  std::thread attacher([&] {
    Status s = containers_.Attach(
        id, [&](std::string_view chunk) { return demux.Feed(chunk).ok(); },
        [&] {
          std::lock_guard<std::mutex> lock(st.mu);
          st.attached = true;
          st.cv.notify_all();
        },
        attach_bound);
    std::lock_guard<std::mutex> lock(st.mu);
    st.status = std::move(s);
    st.done = true;
    st.cv.notify_all();
  });

  RunResult result;
  result.image = job.language.image;
  Status failure;
  bool timed_out = false;
  bool cancelled = false;
  if (hooks.cancel != nullptr) {
    hooks.cancel->OnCancel([&] {
      std::lock_guard<std::mutex> lock(st.mu);
      st.cancel_requested = true;
      st.cv.notify_all();
    });
  }
  Clock::time_point run_start;
  Clock::time_point run_end;
  {
    std::unique_lock<std::mutex> lock(st.mu);
    st.cv.wait_for(lock, options_.attach_timeout,
                   [&] { return st.attached || st.done || st.cancel_requested; });
    if (st.cancel_requested) {
      cancelled = true;
    } else if (!st.attached) {
      failure = st.done ? st.status : DeadlineExceededError("attach to container timed out");
    }
  }
  if (failure.ok() && !cancelled) {
    failure = containers_.Start(id);
    run_start = Clock::now();
  }
  if (failure.ok() && !cancelled) {
    std::unique_lock<std::mutex> lock(st.mu);
    auto deadline = run_start + std::chrono::milliseconds(job.limits.timeout_ms);
    if (!st.cv.wait_until(lock, deadline, [&] { return st.done || st.cancel_requested; })) {
      timed_out = true;
    } else if (!st.done) {
      cancelled = true;
    }
    if (timed_out || cancelled) {
      lock.unlock();
      // First ask coderunner-init to stop the job: it kills every job
      // process and still checks /output, so a volume is never left over
      // its quota by a job that ran out of time. SIGKILL follows if init
      // does not finish promptly (it may be stuck, or the job may have
      // broken it).
      Status asked = containers_.Kill(id, "USR1");
      if (!asked.ok()) spdlog::warn("job {}: signal init: {}", job.id, asked.ToString());
      lock.lock();
      if (!st.cv.wait_for(lock, options_.stop_grace, [&] { return st.done; })) {
        lock.unlock();
        Status killed = containers_.Kill(id);
        if (!killed.ok()) spdlog::warn("job {}: kill: {}", job.id, killed.ToString());
        lock.lock();
        st.cv.wait_for(lock, options_.kill_grace, [&] { return st.done; });
      }
    }
    run_end = Clock::now();
  }

  // Whatever happened, the attach thread must end before its captures die.
  // Removing the container (force) closes the stream if it is still open.
  bool stream_done;
  {
    std::lock_guard<std::mutex> lock(st.mu);
    stream_done = st.done;
  }
  engine::ContainerState state;
  Status inspected = InternalError("not inspected");
  if (failure.ok() && stream_done && !cancelled) {
    // The stream closes when the job's stdio does; the engine may record the
    // exit a moment later, so wait for a running container to settle.
    auto s = containers_.Inspect(id);
    if (s.ok() && s->running) {
      (void)containers_.Wait(id, options_.kill_grace);
      s = containers_.Inspect(id);
    }
    inspected = s.status();
    if (s.ok()) state = std::move(*s);
  }
  Status removed = containers_.Remove(id);
  attacher.join();
  if (hooks.on_output) {
    live_stderr.Finish([&](std::string_view b) { show(engine::StreamId::kStderr, b); });
  }
  if (hooks.cancel != nullptr) hooks.cancel->OnCancel(nullptr);
  if (!removed.ok())
    spdlog::warn("job {}: remove container {}: {}", job.id, id, removed.ToString());
  ws.Remove();

  if (cancelled) {
    discard_output();
    RunResult r = ErrorResult(job, OkStatus());
    r.status = RunStatus::kCancelled;
    r.image_digest = state.image_id;
    r.stdout_data = out.kept();
    r.stderr_data = err.kept();
    r.stdout_truncated = out.truncated();
    r.stderr_truncated = err.truncated();
    r.metrics.wall_ms = MsSince(t0);
    return r;
  }
  if (failure.ok() && !stream_done) {
    failure = InternalError("container output did not close after kill", "stream_stuck");
  }
  if (failure.ok() && !st.status.ok() && !timed_out) failure = st.status;
  if (failure.ok() && !inspected.ok()) failure = inspected;
  if (!failure.ok()) {
    if (failure.code() == StatusCode::kUnavailable && failure.reason() == "engine_unavailable") {
      failure = UnavailableError(failure.message(), "engine_unavailable");
    }
    discard_output();
    RunResult r = ErrorResult(job, failure);
    r.metrics.wall_ms = MsSince(t0);
    return r;
  }

  std::optional<InitTrailer> trailer = ParseInitTrailer(err.tail());
  if (trailer) err.DropSuffix(trailer->length);

  result.image_digest = state.image_id;
  result.stdout_data = out.kept();
  result.stderr_data = err.kept();
  result.stdout_truncated = out.truncated();
  result.stderr_truncated = err.truncated();
  result.exit_code = trailer ? trailer->exit_code : state.exit_code;
  result.signal = trailer ? trailer->signal : (state.exit_code > 128 ? state.exit_code - 128 : 0);
  if (timed_out) {
    // Our kill ended PID 1 before it could report.
    result.signal = SIGKILL;
    result.exit_code = 128 + SIGKILL;
  }
  result.metrics.run_ms =
      trailer ? trailer->wall_us / 1000
              : std::chrono::duration_cast<std::chrono::milliseconds>(run_end - run_start).count();
  if (trailer && trailer->cpu_us >= 0) result.metrics.cpu_ms = trailer->cpu_us / 1000;
  if (trailer && trailer->memory_peak_bytes >= 0) {
    result.metrics.memory_peak_bytes = trailer->memory_peak_bytes;
  }

  bool oom = state.oom_killed || (trailer && trailer->oom_kills > 0);
  bool cpu_exceeded =
      result.signal == SIGXCPU || (result.signal == SIGKILL && trailer && trailer->cpu_us >= 0 &&
                                   trailer->cpu_us / 1000 >= job.limits.cpu_ms);
  bool output_broken = trailer && !trailer->output_violation.empty();
  if (trailer) result.output_bytes = trailer->output_bytes;
  if (timed_out || cpu_exceeded) {
    result.status = RunStatus::kTimeout;
  } else if (oom) {
    result.status = RunStatus::kOom;
  } else if (output_broken) {
    result.status = RunStatus::kFailed;
    result.error = OutputError(job, output, trailer->output_violation, trailer->output_rolled_back);
  } else if (result.exit_code == 0) {
    result.status = RunStatus::kSucceeded;
  } else {
    result.status = RunStatus::kFailed;
  }
  if (!output_dir.empty()) {
    // The container is gone: nothing writes the directory any more.
    auto set = CollectArtifacts(output_dir, options_.artifact_caps);
    if (set.ok()) {
      result.artifacts = std::move(set->files);
      result.artifacts_skipped = std::move(set->skipped);
    } else {
      spdlog::warn("job {}: collect artifacts: {}", job.id, set.status().ToString());
      discard_output();
    }
  }
  result.metrics.wall_ms = MsSince(t0);
  return result;
}

Status ContainerRunner::CheckRuntime(const std::string& id, const std::string& runtime) {
  auto actual = containers_.OciRuntime(id);
  if (!actual.ok()) return actual.status();
  if (*actual == runtime) return OkStatus();
  return FailedPreconditionError(
      "the job's OCI runtime is " + runtime + " but the engine would run it under " + *actual +
          "; it was not started. Podman 4.3 ignores the runtime a container asks for and runs "
          "every container under its own default runtime: use Docker (with the runtime "
          "registered in daemon.json), or a Podman service whose default runtime is " +
          runtime,
      "runtime_not_applied");
}

}  // namespace coderunner::sandbox
