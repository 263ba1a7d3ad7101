#include "coderunner/isolation/container_runner.h"

#include <spdlog/spdlog.h>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/container_removal.h"
#include "coderunner/isolation/job_egress.h"
#include "coderunner/isolation/workspace.h"
#include "engine_loss.h"
#include "run_outcome.h"

namespace coderunner::isolation {
namespace {

// What a failed create of a cold job's container becomes: an unreachable
// engine is Run's own error (the job never ran); a missing image says how
// to get it.
StatusOr<RunResult> CreateFailed(const JobSpec& job, Status s) {
  if (s.code() == StatusCode::kUnavailable) return s;
  if (s.code() == StatusCode::kNotFound) {
    s = FailedPreconditionError(
        "image " + job.language.image + " for language " + job.language.name +
            " is missing: " + s.message() +
            " (build it with images/build.sh or images/build-compilers.sh, or pull it)",
        "image_missing");
  }
  return ErrorResult(job, s);
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
    c.output = {job.volume.engine_name, true, job.volume.quota_bytes, 0, job.volume.max_files,
                job.volume.host_dir};
    // The service's own record of the volume, to undo the run with should
    // it break a bound (init's undo runs as the job's uid: see SettleOutput).
    if (!job.volume.host_dir.empty()) {
      CR_ASSIGN_OR_RETURN(OutputSnapshot before, OutputSnapshot::Take(job.volume.host_dir, 0));
      c.volume_before = std::move(before);
    }
  } else if (!options_.artifacts_root.empty()) {
    CR_ASSIGN_OR_RETURN(c.output_dir, CreateOutputDir(options_.artifacts_root, job.id, c.uid));
    const ArtifactCaps& caps = options_.artifact_caps;
    c.output = {c.output_dir,        false,          caps.max_total_bytes,
                caps.max_file_bytes, caps.max_files, c.output_dir};
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

StatusOr<RunResult> ContainerRunner::AbandonUnstarted(const JobSpec& job, const std::string& id,
                                                      ColdSetup& c, Status why,
                                                      Clock::time_point t0) {
  Status removed = RemoveExitingContainer(containers_, id);
  if (!removed.ok()) {
    spdlog::warn("job {}: remove container {}: {}", job.id, id, removed.ToString());
    c.lease.Keep();  // Its processes may live on as that uid.
  }
  c.ws->Remove();
  // Unreachable engine: the job never ran, as when create fails.
  if (why.code() == StatusCode::kUnavailable) return why;
  RunResult r = ErrorResult(job, why);
  r.metrics.wall_ms = MsSince(t0);
  return r;
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
    return CreateFailed(job, id_or.status());
  }
  const std::string id = *id_or;
  // The engine must run the job under the runtime it was configured for,
  // never silently under another (Podman 4.3 ignores HostConfig.Runtime).
  // Checked before the container ever starts.
  if (const std::string& runtime = policy_.RuntimeOf(job); !runtime.empty()) {
    Status applied = CheckRuntime(id, runtime);
    if (!applied.ok()) return AbandonUnstarted(job, id, c, applied, t0);
  }

  JobOutput io(static_cast<uint64_t>(job.limits.output_bytes), hooks.on_output);
  // The attach call's own bound: the job's wall time plus room to kill it.
  auto attach_bound = options_.attach_timeout + std::chrono::milliseconds(job.limits.timeout_ms) +
                      options_.kill_grace;
  AttachedContainer attach(containers_, id, attach_bound,
                           [&io](std::string_view chunk) { return io.Feed(chunk); });
  // The service watches /output before the job can write it: the engine
  // runs the container before its start call returns.
  std::unique_ptr<OutputWatch::Handle> watch = WatchOutput(job, output, id);
  std::unique_ptr<egress::EgressProxy> proxy;
  Supervised sv = Supervise(
      job, hooks, attach, [&] { return StartCold(job, id, proxy); }, /*wait_for_attach=*/true);

  // Whatever happened, the attach thread must end before its captures die.
  // Removing the container (force) closes the stream if it is still open.
  bool stream_done = attach.done();
  ContainerEnd end =
      LearnEnd(job, id, attach, sv.failure.ok() && stream_done && !sv.cancelled, sv, hooks);
  if (end.engine_lost) stream_done = true;  // What came is all that will.
  Status removed = RemoveExitingContainer(containers_, id);
  // Nothing can ask the proxy for more once the container is gone.
  std::optional<egress::EgressLog> egress_log;
  if (proxy != nullptr) egress_log = proxy->Finish();
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

  // The container is gone: /output is what it will stay.
  OutputVerdict verdict =
      SettleOutput(job, output, std::move(watch), c.volume_before ? &*c.volume_before : nullptr);
  Finished f{sv,
             stream_done,
             end.stream_status,
             end.state,
             end.inspected,
             end.state.image_id,
             ctx.eof_nonce,
             std::move(verdict)};
  RunResult result = BuildResult(job, output, io, f, t0);
  if (end.engine_lost) NoteEngineLoss(result);
  result.egress = std::move(egress_log);
  return KeepOrDiscardOutput(job, c, std::move(result), t0);
}

RunResult ContainerRunner::KeepOrDiscardOutput(const JobSpec& job, ColdSetup& c, RunResult result,
                                               Clock::time_point t0) {
  if (result.status == RunStatus::kCancelled || result.status == RunStatus::kError) {
    c.DiscardOutput();
  } else if (!c.output_dir.empty()) {
    // The container is gone: nothing writes the directory any more.
    CollectInto(job, c.output_dir, result);
  }
  result.metrics.wall_ms = MsSince(t0);
  return result;
}

Status ContainerRunner::StartCold(const JobSpec& job, const std::string& id,
                                  std::unique_ptr<egress::EgressProxy>& proxy) {
  CR_RETURN_IF_ERROR(containers_.Start(id));
  if (!job.egress) return OkStatus();
  CR_ASSIGN_OR_RETURN(engine::ContainerState state, containers_.Inspect(id));
  CR_ASSIGN_OR_RETURN(proxy, OpenEgressProxy(state, *job.egress));
  return OkStatus();
}

Status ContainerRunner::WriteJobFiles(const JobSpec& job, Workspace& ws) {
  Status written = ws.WriteFile(job.language.file, job.code);
  if (written.ok() && !job.package_layer.empty()) {
    const std::string layer = std::string(kPackagesMount) + "/" + job.package_layer;
    written = ws.CreateSymlink(kPackagesLink, layer);
    if (written.ok() && !job.npm_packages.empty()) {
      written = ws.CreateSymlink(kNodeModulesLink, layer + "/node_modules");
    }
  }
  if (written.ok() && !job.stdin_data.empty()) written = ws.WriteFile(kStdinFile, job.stdin_data);
  for (const auto& f : job.files) {
    if (!written.ok()) break;
    written = f.executable ? ws.WriteProgram(f.path, f.content) : ws.WriteFile(f.path, f.content);
  }
  return written;
}

ContainerRunner::ContainerEnd ContainerRunner::LearnEnd(const JobSpec& job, const std::string& id,
                                                        const AttachedContainer& attach,
                                                        bool inspect, Supervised& sv,
                                                        const RunHooks& hooks) {
  ContainerEnd end;
  if (inspect) {
    auto s = InspectSettled(id);
    end.inspected = s.status();
    if (s.ok()) end.state = std::move(*s);
  }
  end.stream_status = attach.status();
  // Started, or a start call whose answer the engine's loss swallowed.
  const bool lost =
      sv.started ? EngineLost(end.stream_status, end.inspected) : StartOutcomeUnknown(sv.failure);
  if (lost && !sv.cancelled) {
    if (auto state = AwaitEndAfterEngineLoss(job, id, sv, hooks)) {
      end.state = std::move(*state);
      end.inspected = end.stream_status = sv.failure = OkStatus();
      sv.started = end.engine_lost = true;
    }
  }
  return end;
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
  auto set = CollectArtifacts(dir, CapsAfterRun(options_.artifact_caps, result.error));
  if (set.ok()) {
    result.artifacts = std::move(set->files);
    result.artifacts_skipped = std::move(set->skipped);
  } else {
    spdlog::warn("job {}: collect artifacts: {}", job.id, set.status().ToString());
    (void)RemoveTree(dir);
  }
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
