// ContainerRunner's warm path: a job in a pre-started container of the warm
// pool, started by the go message (init_message.h).
#include <spdlog/spdlog.h>
#include <string.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <optional>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/container_removal.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/isolation/init_trailer.h"
#include "engine_loss.h"
#include "init_message.h"
#include "run_outcome.h"

namespace coderunner::isolation {

StatusOr<RunResult> ContainerRunner::RunPooled(const JobSpec& job, const RunHooks& hooks,
                                               std::unique_ptr<PooledContainer> warm) {
  const auto t0 = Clock::now();
  PooledContainer& c = *warm;
  // Container reuse (a tier's choice): init then waits for the scope's
  // next job. Not with a home directory, which init does not clear.
  const bool reuse = !job.reuse_scope.empty() && job.home_bytes == 0;
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
  // A reused container's stream was marked complete by its last job.
  attach.ClearComplete();
  io.ExpectEnd(nonce, [&attach] { attach.MarkComplete(); });
  c.attach->SetSink([&io](std::string_view chunk) { return io.Feed(chunk); });
  // "go": the job's arguments and stdin choice, one write into the FIFO
  // (the message is far smaller than a pipe buffer, which is empty).
  // The service watches /output from the moment the job can write it.
  std::unique_ptr<OutputWatch::Handle> watch;
  auto go = [&]() -> Status {
    c.ran_job = true;
    watch = WatchOutput(job, c.output, c.id);
    return WriteGoMessage(c.go_fd, {!job.stdin_data.empty(), nonce, job.args,
                                    reuse ? GoMode::kReuse : GoMode::kOnce});
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
  // Member by member: gcc -O1 takes an aggregate's "{}" ContainerState for
  // uninitialized JSON (-Wmaybe-uninitialized).
  Finished f;
  f.sv = sv;
  f.stream_done = stream_done;
  f.stream_status = c.attach->status();
  f.image_digest = c.image_digest;
  f.nonce = nonce;
  bool engine_lost = false;
  // A watch that stopped the job killed init with it: no trailer then.
  if (!trailer || !sv.failure.ok() || sv.cancelled) {
    engine_lost = EndUntrailed(job, c, stream_done, hooks, f);
  }
  io.Finish();
  f.stream_status = engine_lost ? OkStatus() : c.attach->status();
  // Reuse: init waits for the next job; the container is removed at once
  // unless it is kept for it.
  const bool waits = reuse && trailer && !c.container_removed;
  if (waits) c.ran_job = false;
  if (!waits) (void)c.workspace->Remove();
  // Every job process is dead: init's trailer comes after it killed them,
  // or the container was removed.
  f.verdict = SettleOutput(job, c.output, std::move(watch), nullptr);

  RunResult result = BuildResult(job, c.output, io, f, t0);
  if (engine_lost) NoteEngineLoss(result);
  GiveBack(job, std::move(warm), waits && ServesAgain(*trailer, f, result), result);
  result.metrics.wall_ms = MsSince(t0);
  return result;
}

bool ContainerRunner::EndUntrailed(const JobSpec& job, PooledContainer& c, bool stream_done,
                                   const RunHooks& hooks, Finished& f) {
  ContainerEnd end = LearnEnd(job, c.id, *c.attach,
                              f.sv.failure.ok() && stream_done && !f.sv.cancelled, f.sv, hooks);
  f.state = std::move(end.state);
  f.inspected = end.inspected;
  Status removed = RemoveExitingContainer(containers_, c.id);
  if (!removed.ok()) {
    spdlog::warn("job {}: remove container {}: {}", job.id, c.id, removed.ToString());
  }
  c.container_removed = removed.ok();
  c.attach->Join();
  return end.engine_lost;
}

void ContainerRunner::GiveBack(const JobSpec& job, std::unique_ptr<PooledContainer> warm,
                               bool serves_again, RunResult& result) {
  PooledContainer& c = *warm;
  if (serves_again && c.workspace->RemoveAllBut(kGoFifo).ok()) {
    ++c.jobs_served;
    pool_->Keep(job, std::move(warm));
    return;
  }
  (void)c.workspace->Remove();
  if (result.status != RunStatus::kCancelled && result.status != RunStatus::kError) {
    AdoptPoolOutput(job, c, result);
  }
  pool_->Retire(std::move(warm));
}

bool ContainerRunner::ServesAgain(const InitTrailer& trailer, const Finished& f,
                                  const RunResult& result) {
  // Init's word that every process is gone and /tmp and System V IPC are
  // empty; nothing left in /output (it would be the job's artifacts); an
  // end of the program's own, not of a deadline, a bound or a kill.
  const bool ended_itself =
      result.status == RunStatus::kSucceeded || result.status == RunStatus::kFailed;
  return trailer.reusable && trailer.output_entries <= 0 && trailer.output_violation.empty() &&
         f.verdict.violation.empty() && f.sv.failure.ok() && !f.sv.timed_out && !f.sv.cancelled &&
         ended_itself && trailer.oom_kills <= 0;
}

void ContainerRunner::AdoptPoolOutput(const JobSpec& job, PooledContainer& c, RunResult& result) {
  if (c.output_dir.empty()) return;
  std::string dir = options_.artifacts_root + "/" + job.id;
  (void)RemoveTree(dir);
  if (rename(c.output_dir.c_str(), dir.c_str()) == 0) {
    c.output_dir.clear();
    CollectInto(job, dir, result);
  } else {
    spdlog::warn("job {}: take over pool output {}: {}", job.id, c.output_dir, strerror(errno));
  }
}

}  // namespace coderunner::isolation
