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
  // The service watches /output from the moment the job can write it.
  std::unique_ptr<OutputWatch::Handle> watch;
  auto go = [&]() -> Status {
    c.ran_job = true;
    watch = WatchOutput(job, c.output, c.id);
    return WriteGoMessage(c.go_fd, {!job.stdin_data.empty(), nonce, job.args});
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
    ContainerEnd end = LearnEnd(job, c.id, *c.attach,
                                sv.failure.ok() && stream_done && !sv.cancelled, f.sv, hooks);
    f.state = std::move(end.state);
    f.inspected = end.inspected;
    engine_lost = end.engine_lost;
    Status removed = RemoveExitingContainer(containers_, c.id);
    if (!removed.ok()) {
      spdlog::warn("job {}: remove container {}: {}", job.id, c.id, removed.ToString());
    }
    c.container_removed = removed.ok();
    c.attach->Join();
  }
  io.Finish();
  f.stream_status = engine_lost ? OkStatus() : c.attach->status();
  (void)c.workspace->Remove();
  // Every job process is dead: init's trailer comes after it killed them,
  // or the container was removed.
  f.verdict = SettleOutput(job, c.output, std::move(watch), nullptr);

  RunResult result = BuildResult(job, c.output, io, f, t0);
  if (engine_lost) NoteEngineLoss(result);
  if (result.status != RunStatus::kCancelled && result.status != RunStatus::kError) {
    AdoptPoolOutput(job, c, result);
  }
  pool_->Retire(std::move(warm));
  result.metrics.wall_ms = MsSince(t0);
  return result;
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
