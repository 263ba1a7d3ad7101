#include "coderunner/isolation/container_runner.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <string.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/init_trailer.h"
#include "coderunner/isolation/workspace.h"
#include "init_message.h"

namespace coderunner::isolation {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

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

// The error a job that never started becomes: coderunner-init's
// `start_error` and its own explanation, the last line it wrote before the
// trailer. A fault of the service or the engine, never of the program.
Status StartError(const std::string& what, std::string_view stderr_tail) {
  while (!stderr_tail.empty() && stderr_tail.back() == '\n') stderr_tail.remove_suffix(1);
  size_t nl = stderr_tail.rfind('\n');
  std::string said(nl == std::string_view::npos ? stderr_tail : stderr_tail.substr(nl + 1));
  if (what == "policy") {
    return FailedPreconditionError("coderunner-init refused to run the job: " + said,
                                   "policy_not_applied");
  }
  return InternalError("the job could not be started (" + what + "): " + said, "job_start_failed");
}

// Writes the go message for `go` into a pooled container's FIFO `fd`.
Status SendGo(int fd, const GoRequest& go) {
  const std::string msg = EncodeGoMessage(go);
  ssize_t w = write(fd, msg.data(), msg.size());
  if (w != static_cast<ssize_t>(msg.size())) {
    return InternalError("write go message to pool container: " +
                             std::string(w < 0 ? strerror(errno) : "short write"),
                         "pool_go_failed");
  }
  return OkStatus();
}

RunResult ErrorResult(const JobSpec& job, Status error) {
  RunResult r;
  r.status = RunStatus::kError;
  r.image = job.language.image;
  r.error = std::move(error);
  return r;
}

}  // namespace

ContainerRunner::ContainerRunner(engine::ContainerClient& containers, const ContainerPolicy& policy,
                                 RunnerOptions options)
    : containers_(containers), policy_(policy), options_(std::move(options)) {
  if (options_.uids == nullptr) {
    own_uids_ = std::make_unique<UidPool>(kDefaultFirstJobUid, kDefaultJobUidCount);
  }
  uids_ = options_.uids != nullptr ? options_.uids : own_uids_.get();
}

StatusOr<RunResult> ContainerRunner::Run(const JobSpec& job, const RunHooks& hooks) {
  if (pool_ != nullptr && pool_->Eligible(job)) {
    if (std::unique_ptr<PooledContainer> warm = pool_->Take(job)) {
      return RunPooled(job, hooks, std::move(warm));
    }
  }
  return RunCold(job, hooks);
}

ContainerRunner::Supervised ContainerRunner::Supervise(const JobSpec& job, const RunHooks& hooks,
                                                       AttachedContainer& attach,
                                                       const std::function<Status()>& start,
                                                       bool wait_for_attach) {
  Supervised sv;
  if (hooks.cancel != nullptr) hooks.cancel->OnCancel([&attach] { attach.Cancel(); });
  if (wait_for_attach) {
    switch (attach.WaitAttached(Clock::now() + options_.attach_timeout)) {
      case AttachedContainer::Wake::kCancelled:
        sv.cancelled = true;
        break;
      case AttachedContainer::Wake::kTimedOut:
        sv.failure = DeadlineExceededError("attach to container timed out");
        break;
      case AttachedContainer::Wake::kDone:
        sv.failure = attach.status();
        break;
      case AttachedContainer::Wake::kAttached:
        break;
    }
  }
  if (!sv.failure.ok() || sv.cancelled) return sv;
  sv.failure = start();
  sv.run_start = Clock::now();
  if (!sv.failure.ok()) return sv;
  sv.started = true;
  auto wake = attach.WaitDone(sv.run_start + std::chrono::milliseconds(job.limits.timeout_ms));
  sv.timed_out = wake == AttachedContainer::Wake::kTimedOut;
  sv.cancelled = wake == AttachedContainer::Wake::kCancelled;
  if (sv.timed_out || sv.cancelled) {
    // First ask coderunner-init to stop the job: it kills every job process
    // and still checks /output, so a volume is never left over its quota by
    // a job that ran out of time. SIGKILL follows if init does not finish
    // promptly (it may be stuck, or the job may have broken it).
    Status asked = containers_.Kill(attach.id(), "USR1");
    if (!asked.ok()) spdlog::warn("job {}: signal init: {}", job.id, asked.ToString());
    if (attach.WaitDone(Clock::now() + options_.stop_grace, false) !=
        AttachedContainer::Wake::kDone) {
      Status killed = containers_.Kill(attach.id());
      if (!killed.ok()) spdlog::warn("job {}: kill: {}", job.id, killed.ToString());
      attach.WaitDone(Clock::now() + options_.kill_grace, false);
    }
  }
  sv.run_end = Clock::now();
  return sv;
}

StatusOr<ContainerRunner::ColdSetup> ContainerRunner::PrepareCold(const JobSpec& job) {
  ColdSetup c;
  // The container's own uid: its volume's (every file in it is that
  // uid's), else a lease held until the container is gone.
  c.uid = job.volume.uid;
  if (job.volume.id.empty()) {
    CR_ASSIGN_OR_RETURN(c.lease, uids_->Lease());
    c.uid = c.lease.uid();
  }
  if (!job.volume.id.empty()) {
    if (job.volume.engine_name.empty()) {
      return FailedPreconditionError("volume " + job.volume.id + " not resolved",
                                     "volume_not_found");
    }
    c.output = {job.volume.engine_name, true, job.volume.quota_bytes, 0, job.volume.max_files};
  } else if (!options_.artifacts_root.empty()) {
    CR_ASSIGN_OR_RETURN(c.output_dir, CreateOutputDir(options_.artifacts_root, job.id, c.uid));
    const ArtifactCaps& caps = options_.artifact_caps;
    c.output = {c.output_dir, false, caps.max_total_bytes, caps.max_file_bytes, caps.max_files};
  }
  auto workspace = Workspace::Create(options_.workspace_root, job.id, c.uid);
  Status written = workspace.ok() ? WriteJobFiles(job, **workspace) : workspace.status();
  if (!written.ok()) {
    c.DiscardOutput();
    return written;
  }
  c.ws = std::move(*workspace);
  return c;
}

void ContainerRunner::ColdSetup::DiscardOutput() {
  if (!output_dir.empty()) (void)RemoveTree(output_dir);
}

StatusOr<RunResult> ContainerRunner::RunCold(const JobSpec& job, const RunHooks& hooks) {
  const auto t0 = Clock::now();
  auto setup = PrepareCold(job);
  if (!setup.ok()) return ErrorResult(job, setup.status());
  ColdSetup& c = *setup;
  const OutputMount& output = c.output;
  auto discard_output = [&c] { c.DiscardOutput(); };
  Workspace& ws = *c.ws;

  ContainerContext ctx{job, ws.path(), !job.stdin_data.empty(), output};
  ctx.eof_nonce = NewId("eof").substr(4);
  ctx.uid = c.uid;
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
        c.lease.Keep();  // Its processes may live on as that uid.
      }
      ws.Remove();
      // Unreachable engine: the job never ran, as when create fails.
      if (applied.code() == StatusCode::kUnavailable) return applied;
      RunResult r = ErrorResult(job, applied);
      r.metrics.wall_ms = MsSince(t0);
      return r;
    }
  }

  JobOutput io(static_cast<uint64_t>(job.limits.output_bytes), hooks.on_output);
  // The attach call's own bound: the job's wall time plus room to kill it.
  auto attach_bound = options_.attach_timeout + std::chrono::milliseconds(job.limits.timeout_ms) +
                      options_.kill_grace;
  AttachedContainer attach(containers_, id, attach_bound);
  attach.SetSink([&io](std::string_view chunk) { return io.Feed(chunk); });
  Supervised sv = Supervise(
      job, hooks, attach, [&] { return containers_.Start(id); }, /*wait_for_attach=*/true);

  // Whatever happened, the attach thread must end before its captures die.
  // Removing the container (force) closes the stream if it is still open.
  const bool stream_done = attach.done();
  engine::ContainerState state;
  Status inspected = InternalError("not inspected");
  if (sv.failure.ok() && stream_done && !sv.cancelled) {
    auto s = InspectSettled(id);
    inspected = s.status();
    if (s.ok()) state = std::move(*s);
  }
  Status removed = containers_.Remove(id);
  // Docker 20.10 never closes the attach stream of a container removed
  // before it started (a job cancelled while attaching): end it ourselves
  // rather than hold this worker until the attach call's own bound.
  attach.EndAfterRemoval(sv.started ? std::chrono::milliseconds(2000)
                                    : std::chrono::milliseconds(0));
  io.Finish();
  if (hooks.cancel != nullptr) hooks.cancel->OnCancel(nullptr);
  if (!removed.ok()) {
    spdlog::warn("job {}: remove container {}: {}", job.id, id, removed.ToString());
    c.lease.Keep();  // Its processes may live on as that uid.
  }
  ws.Remove();

  Finished f{sv, stream_done, attach.status(), state, inspected, state.image_id, ctx.eof_nonce};
  RunResult result = BuildResult(job, output, io, f, t0);
  if (result.status == RunStatus::kCancelled || result.status == RunStatus::kError) {
    discard_output();
  } else if (!c.output_dir.empty()) {
    // The container is gone: nothing writes the directory any more.
    CollectInto(job, c.output_dir, result);
  }
  result.metrics.wall_ms = MsSince(t0);
  return result;
}

StatusOr<RunResult> ContainerRunner::RunPooled(const JobSpec& job, const RunHooks& hooks,
                                               std::unique_ptr<PooledContainer> warm) {
  const auto t0 = Clock::now();
  PooledContainer& c = *warm;
  Status written = WriteJobFiles(job, *c.workspace);
  if (!written.ok()) {
    pool_->Retire(std::move(warm));
    return ErrorResult(job, written);
  }
  JobOutput io(static_cast<uint64_t>(job.limits.output_bytes), hooks.on_output);
  // init ends both streams with markers carrying this nonce; seeing them is
  // completion, ~40 ms before Docker closes the attach stream.
  const std::string nonce = NewId("eof").substr(4);
  AttachedContainer& attach = *c.attach;
  io.ExpectEnd(nonce, [&attach] { attach.MarkComplete(); });
  c.attach->SetSink([&io](std::string_view chunk) { return io.Feed(chunk); });
  // "go": the job's arguments and stdin choice, one write into the FIFO
  // (the message is far smaller than a pipe buffer, which is empty).
  auto go = [&]() -> Status {
    c.ran_job = true;
    return SendGo(c.go_fd, {!job.stdin_data.empty(), nonce, job.args});
  };
  Supervised sv = Supervise(job, hooks, *c.attach, go, /*wait_for_attach=*/false);
  if (hooks.cancel != nullptr) hooks.cancel->OnCancel(nullptr);
  // No Feed runs after this returns: the output can be read.
  c.attach->SetSink(nullptr);
  const bool complete = io.ended();
  const bool stream_done = complete || c.attach->done();
  if (complete) io.DropStdoutMarker();

  std::optional<InitTrailer> trailer;
  if (stream_done) trailer = ParseInitTrailer(io.err().tail());
  if (trailer && trailer->eof != nonce) trailer.reset();
  // The trailer is what init writes after every job process is dead, so
  // with it the container needs no inspect and its removal can happen off
  // the job's path. Without it (init killed), fall back to the engine's
  // view and remove the container before touching /output.
  Finished f{sv, stream_done, c.attach->status(), {}, OkStatus(), c.image_digest, nonce};
  if (!trailer || !sv.failure.ok() || sv.cancelled) {
    if (sv.failure.ok() && stream_done && !sv.cancelled) {
      auto s = InspectSettled(c.id);
      f.inspected = s.status();
      if (s.ok()) f.state = std::move(*s);
    }
    Status removed = containers_.Remove(c.id);
    if (!removed.ok()) {
      spdlog::warn("job {}: remove container {}: {}", job.id, c.id, removed.ToString());
    }
    c.container_removed = removed.ok();
    c.attach->Join();
  }
  io.Finish();
  f.stream_status = c.attach->status();
  (void)c.workspace->Remove();

  RunResult result = BuildResult(job, c.output, io, f, t0);
  if (!c.output_dir.empty() && result.status != RunStatus::kCancelled &&
      result.status != RunStatus::kError) {
    // The slot's /output becomes the job's artifact directory.
    std::string dir = options_.artifacts_root + "/" + job.id;
    (void)RemoveTree(dir);
    if (rename(c.output_dir.c_str(), dir.c_str()) == 0) {
      c.output_dir.clear();
      CollectInto(job, dir, result);
    } else {
      spdlog::warn("job {}: take over pool output {}: {}", job.id, c.output_dir, strerror(errno));
    }
  }
  pool_->Retire(std::move(warm));
  result.metrics.wall_ms = MsSince(t0);
  return result;
}

Status ContainerRunner::WriteJobFiles(const JobSpec& job, Workspace& ws) {
  Status written = ws.WriteFile(job.language.file, job.code);
  if (written.ok() && !job.stdin_data.empty()) written = ws.WriteFile(kStdinFile, job.stdin_data);
  for (const auto& f : job.files) {
    if (!written.ok()) break;
    written = ws.WriteFile(f.path, f.content);
  }
  return written;
}

StatusOr<engine::ContainerState> ContainerRunner::InspectSettled(const std::string& id) {
  // The stream closes when the job's stdio does; the engine may record the
  // exit a moment later, so wait for a running container to settle.
  auto s = containers_.Inspect(id);
  if (s.ok() && s->running) {
    (void)containers_.Wait(id, options_.kill_grace);
    s = containers_.Inspect(id);
  }
  return s;
}

void ContainerRunner::CollectInto(const JobSpec& job, const std::string& dir, RunResult& result) {
  auto set = CollectArtifacts(dir, options_.artifact_caps);
  if (set.ok()) {
    result.artifacts = std::move(set->files);
    result.artifacts_skipped = std::move(set->skipped);
  } else {
    spdlog::warn("job {}: collect artifacts: {}", job.id, set.status().ToString());
    (void)RemoveTree(dir);
  }
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
    if (failure.code() == StatusCode::kUnavailable && failure.reason() == "engine_unavailable") {
      failure = UnavailableError(failure.message(), "engine_unavailable");
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
  const engine::ContainerState& state = f.state;
  result.exit_code = trailer ? trailer->exit_code : state.exit_code;
  result.signal = trailer ? trailer->signal : (state.exit_code > 128 ? state.exit_code - 128 : 0);
  if (sv.timed_out) {
    // Our kill ended PID 1 before it could report.
    result.signal = SIGKILL;
    result.exit_code = 128 + SIGKILL;
  }
  result.metrics.run_ms =
      trailer ? trailer->wall_us / 1000
              : std::chrono::duration_cast<std::chrono::milliseconds>(sv.run_end - sv.run_start)
                    .count();
  if (trailer && trailer->cpu_us >= 0) result.metrics.cpu_ms = trailer->cpu_us / 1000;
  if (trailer && trailer->memory_peak_bytes >= 0) {
    result.metrics.memory_peak_bytes = trailer->memory_peak_bytes;
  }

  bool oom = state.oom_killed || (trailer && trailer->oom_kills > 0);
  bool cpu_exceeded =
      result.signal == SIGXCPU || (result.signal == SIGKILL && trailer && trailer->cpu_us >= 0 &&
                                   trailer->cpu_us / 1000 >= job.limits.cpu_ms);
  bool output_broken = trailer && !trailer->output_violation.empty();
  if (trailer) {
    result.output_bytes =
        trailer->output_used_bytes >= 0 ? trailer->output_used_bytes : trailer->output_bytes;
  }
  if (sv.timed_out || cpu_exceeded) {
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

}  // namespace coderunner::isolation
