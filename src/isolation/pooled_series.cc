// ContainerRunner's series path: the cases of one program run one after
// another in one pooled container, each a fresh process started by its own
// go message ("more", then "last"). coderunner-init kills every process of
// a case and empties /tmp and /output (and removes System V IPC objects)
// before it reports the case; only a trailer saying so ("reusable") lets
// the next case's go be written.
#include <spdlog/spdlog.h>

#include <optional>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/isolation/init_trailer.h"
#include "init_message.h"
#include "run_outcome.h"

namespace coderunner::isolation {
namespace {

// The program's job without its code and files (written once into the
// container's workspace), as each case's job starts.
JobSpec CaseStub(const JobSpec& program) {
  JobSpec stub = program;
  stub.code.clear();
  stub.files.clear();
  stub.stdin_data.clear();
  stub.args.clear();
  return stub;
}

JobSpec CaseJobOf(const JobSpec& stub, const SeriesCase& c) {
  JobSpec job = stub;
  job.id = c.id;
  job.stdin_data = c.stdin_data;
  job.args = c.args;
  job.limits = c.limits;
  return job;
}

}  // namespace

size_t ContainerRunner::RunSeries(const JobSpec& program, const std::vector<SeriesCase>& cases,
                                  const RunHooks& hooks, const SeriesGoOn& go_on) {
  size_t ran = 0;
  if (pool_ == nullptr || cases.empty()) return ran;
  const JobSpec stub = CaseStub(program);
  // Every case must fit the one container: the same create body (its
  // limits but the wall time shape it), and a go message.
  const JobSpec first = CaseJobOf(stub, cases.front());
  if (!pool_->Eligible(first)) return ran;
  const std::string shape = pool_->KeyOf(first);
  for (const SeriesCase& c : cases) {
    JobSpec job = CaseJobOf(stub, c);
    if (!FitsGoMessage(c.args) || pool_->KeyOf(job) != shape) return ran;
  }
  std::unique_ptr<PooledContainer> warm = pool_->TakeOrPrepare(first);
  if (!warm) return ran;
  // The program once, without stdin: each case writes its own.
  JobSpec files_only = program;
  files_only.stdin_data.clear();
  Status written = WriteJobFiles(files_only, *warm->workspace);
  if (!written.ok()) {
    spdlog::warn("job {}: series: {}", program.id, written.ToString());
    pool_->Retire(std::move(warm));
    return ran;
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    const bool last = i + 1 == cases.size();
    SeriesStep step = RunSeriesCase(CaseJobOf(stub, cases[i]), last, hooks, *warm);
    if (!step.result) break;
    ++ran;
    if (!go_on(std::move(*step.result)) || !step.reusable) break;
  }
  pool_->Retire(std::move(warm));
  return ran;
}

ContainerRunner::SeriesStep ContainerRunner::RunSeriesCase(const JobSpec& job, bool last,
                                                           const RunHooks& hooks,
                                                           PooledContainer& c) {
  const auto t0 = Clock::now();
  SeriesStep step;
  // The case's stdin, and never an earlier case's (an empty file for a
  // case that reads /dev/null).
  Status stdin_ready = c.workspace->ReplaceFile(kStdinFile, job.stdin_data);
  if (!stdin_ready.ok()) {
    spdlog::warn("job {}: series stdin: {}", job.id, stdin_ready.ToString());
    return step;
  }
  JobOutput io(static_cast<uint64_t>(job.limits.output_bytes), hooks.on_output);
  const std::string nonce = NewId("eof").substr(4);
  AttachedContainer& attach = *c.attach;
  attach.ClearComplete();
  io.ExpectEnd(nonce, [&attach] { attach.MarkComplete(); });
  attach.SetSink([&io](std::string_view chunk) { return io.Feed(chunk); });
  std::unique_ptr<OutputWatch::Handle> watch;
  auto go = [&]() -> Status {
    c.ran_job = true;
    watch = WatchOutput(job, c.output, c.id);
    return WriteGoMessage(
        c.go_fd, {!job.stdin_data.empty(), nonce, job.args, last ? GoMode::kLast : GoMode::kMore});
  };
  Supervised sv = Supervise(job, hooks, attach, go, /*wait_for_attach=*/false);
  if (hooks.cancel != nullptr) hooks.cancel->OnCancel(nullptr);
  attach.SetSink(nullptr);  // No Feed runs after this returns.
  std::optional<InitTrailer> trailer;
  if (io.ended()) {
    io.DropStdoutMarker();
    trailer = ParseInitTrailer(io.err().tail());
    if (trailer && trailer->eof != nonce) trailer.reset();
  }
  // Without init's word on the case (the container was killed, the
  // engine went away), nothing is known of it: it runs again elsewhere.
  if (!trailer || !sv.failure.ok()) return step;
  io.Finish();
  // Init waits for the next go (or ended after the last case).
  c.ran_job = last;
  Finished f;
  f.sv = sv;
  f.stream_done = true;
  f.stream_status = OkStatus();
  f.inspected = OkStatus();
  f.image_digest = c.image_digest;
  f.nonce = nonce;
  // Init killed every process of the case before its trailer.
  f.verdict = SettleOutput(job, c.output, std::move(watch), nullptr);
  step.result = BuildResult(job, c.output, io, f, t0);
  step.result->metrics.wall_ms = MsSince(t0);
  step.reusable = trailer->reusable && !sv.cancelled;
  return step;
}

}  // namespace coderunner::isolation
