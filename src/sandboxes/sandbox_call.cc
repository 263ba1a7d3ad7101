// LiveSandbox's calls: one frame of code to the REPL driver, its reply
// read up to the end marker, and what a call that broke the container
// becomes.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/init_trailer.h"
#include "coderunner/sandboxes/live_sandbox.h"

namespace coderunner::sandboxes {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

// How long past a call's timeout the driver has to end it itself (its own
// timer, or the SIGINT we send) before the container is replaced.
constexpr auto kDriverGrace = std::chrono::milliseconds(1500);
constexpr auto kInterruptGrace = std::chrono::milliseconds(1000);

}  // namespace

CallResult LiveSandbox::Execute(const std::vector<isolation::InputFile>& files,
                                const std::string& code, int64_t timeout_ms,
                                const CallOutputFn& on_output) {
  std::string restart_why;
  CallResult r = Call(files, code, timeout_ms, on_output, &restart_why);
  if (RollBackVolume()) {
    r.status = isolation::RunStatus::kFailed;
    r.error = FailedPreconditionError(
        "the call wrote more than volume " + spec_.volume.id + " holds (size_bytes " +
            std::to_string(spec_.volume.quota_bytes) +
            " or its file count); the files it created or changed were removed",
        "volume_quota_exceeded");
  }
  // Only now, with the volume back under its quota: coderunner-init checks
  // /output's bounds at start and would stop the replacement at once.
  if (!restart_why.empty()) {
    Status restarted = Restart(restart_why);
    if (!restarted.ok()) {
      spdlog::warn("sandbox {}: restart failed: {}", spec_.id, restarted.ToString());
      r.error = restarted;
    }
  }
  if (volume_guard_) volume_guard_->Settle();
  if (output_reset_) {
    output_reset_ = false;
    r.output_reset = true;
  }
  return r;
}

CallResult LiveSandbox::Call(const std::vector<isolation::InputFile>& files,
                             const std::string& code, int64_t timeout_ms,
                             const CallOutputFn& on_output, std::string* restart_why) {
  const auto t0 = Clock::now();
  CallResult r;
  if (!alive()) {
    Status s = Restart("its container is gone");
    r.state_lost = true;
    if (!s.ok()) {
      r.error = s;
      return r;
    }
  }
  for (const auto& f : files) {
    Status w = workspace_->ReplaceFile(f.path, f.content);
    if (!w.ok()) {
      r.error = w;
      return r;
    }
  }
  const std::string nonce = NewId("eof").substr(4);
  const size_t cap = static_cast<size_t>(spec_.limits.output_bytes);
  CallStreams io{MarkerCut(nonce, cap), MarkerCut(nonce, cap), on_output ? &on_output : nullptr};
  const auto deadline = t0 + std::chrono::milliseconds(timeout_ms);
  Status written = OkStatus();
  const bool ended = Converse(io, EncodeCall(nonce, timeout_ms, code), deadline, &written);
  r.wall_ms = MsSince(t0);
  std::optional<isolation::InitTrailer> trailer;
  if (ended) {
    trailer = isolation::ParseInitTrailer(io.err.marker());
  } else {
    // No reply: what came is the output; init's own trailer may end it (the
    // driver died and init reported how).
    io.out.Flush();
    io.err.Flush();
    trailer = isolation::ParseInitTrailer(io.err.out().tail());
    if (trailer) io.err.out().DropSuffix(trailer->length);
  }
  r.stdout_truncated = io.out.out().truncated();
  r.stderr_truncated = io.err.out().truncated();
  r.stdout_data = io.out.out().TakeKept();
  r.cell = TakeCellRecords(&r.stdout_data);
  r.stderr_data = io.err.out().TakeKept();
  if (ended && trailer) {
    r.exit_code = trailer->exit_code;
    r.run_ms = trailer->wall_us / 1000;
    if (trailer->cpu_us >= 0) r.cpu_ms = trailer->cpu_us / 1000;
    r.memory_peak_bytes = trailer->memory_peak_bytes;
    if (trailer->timed_out) {
      r.status = isolation::RunStatus::kTimeout;
    } else {
      r.status =
          r.exit_code == 0 ? isolation::RunStatus::kSucceeded : isolation::RunStatus::kFailed;
    }
    return r;
  }
  // The call did not end normally: find out why, then replace the container.
  ExplainBrokenCall(written, trailer, r, restart_why);
  return r;
}

void LiveSandbox::SendSettled(CallStreams& io, bool is_stderr) {
  if (io.on_output == nullptr) return;
  const MarkerCut& cut = is_stderr ? io.err : io.out;
  size_t& sent = is_stderr ? io.err_sent : io.out_sent;
  const size_t settled = cut.settled_size();
  if (settled < sent) sent = 0;  // An earlier call's end started it over.
  if (settled == sent) return;
  (*io.on_output)(is_stderr, cut.Settled(sent));
  sent = settled;
}

bool LiveSandbox::Converse(CallStreams& io, const std::string& frame, Clock::time_point deadline,
                           Status* written) {
  {
    std::lock_guard<std::mutex> lock(feed_mu_);
    call_ended_ = false;
    current_ = &io;
  }
  *written = WriteFrame(frame, deadline + kDriverGrace);
  bool ended = false;
  bool interrupted = false;
  if (written->ok()) {
    std::unique_lock<std::mutex> lock(feed_mu_);
    auto limit = deadline + kDriverGrace;
    for (;;) {
      if (call_ended_) {
        ended = true;
        break;
      }
      if (!alive()) break;
      auto now = Clock::now();
      if (now >= limit) {
        if (interrupted || !driver_.interrupts_calls) break;
        // The driver's own timer did not end it (a blocking C call): a
        // SIGINT through PID 1 may; otherwise the container is replaced.
        interrupted = true;
        lock.unlock();
        (void)containers_.Kill(container_id_, "SIGINT");
        lock.lock();
        limit = Clock::now() + kInterruptGrace;
        continue;
      }
      // Output wakes us; a dead stream does not, hence the bounded wait.
      feed_cv_.wait_for(lock,
                        std::min<Clock::duration>(limit - now, std::chrono::milliseconds(50)));
    }
    current_ = nullptr;
  } else {
    std::lock_guard<std::mutex> lock(feed_mu_);
    current_ = nullptr;
  }
  return ended;
}

void LiveSandbox::ExplainBrokenCall(const Status& written,
                                    const std::optional<isolation::InitTrailer>& trailer,
                                    CallResult& r, std::string* restart_why) {
  r.state_lost = true;
  bool oom = false;
  std::string why;
  if (!written.ok()) {
    why = written.message();
  } else if (alive()) {
    why = "a call ran past its timeout and could not be interrupted";
    r.status = isolation::RunStatus::kTimeout;
    r.exit_code = 128 + SIGKILL;
  } else {
    // The driver died. init's own trailer (when it got to write one) says
    // how; the engine's state covers the rest.
    auto state = containers_.Inspect(container_id_);
    const std::string breach = OutputBreach();
    if (!breach.empty()) {
      // The service's watch stopped it (init had no say, and no trailer).
      r.error = FailedPreconditionError(
          "the sandbox's /output broke a bound (" + breach + "); the sandbox was restarted",
          "output_" + breach);
      if (state.ok()) r.exit_code = state->exit_code;
    } else if (trailer) {
      r.exit_code = trailer->exit_code;
      oom = trailer->oom_kills > 0;
      if (!trailer->output_violation.empty()) {
        r.error =
            FailedPreconditionError("the sandbox's /output broke a bound (" +
                                        trailer->output_violation + "); the sandbox was restarted",
                                    "output_" + trailer->output_violation);
      }
    } else if (state.ok()) {
      r.exit_code = state->exit_code;
    }
    if (state.ok() && state->oom_killed) oom = true;
    why =
        oom ? "out of memory" : "its interpreter exited (code " + std::to_string(r.exit_code) + ")";
    r.status = oom ? isolation::RunStatus::kOom : isolation::RunStatus::kFailed;
  }
  *restart_why = why.empty() ? std::string("the call broke it") : why;
  if (!written.ok()) {
    r.status = isolation::RunStatus::kError;
    r.error = written;
  }
}

Status LiveSandbox::WriteFrame(const std::string& frame, Clock::time_point deadline) {
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t n = write(channel_fd_, frame.data() + done, frame.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return InternalError(std::string("write to sandbox channel: ") + strerror(errno),
                           "sandbox_channel");
    }
    // The pipe is full: the driver is reading (a large call) or gone.
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !alive()) {
      return DeadlineExceededError("the sandbox did not take the call", "sandbox_unresponsive");
    }
    pollfd p{channel_fd_, POLLOUT, 0};
    (void)poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
  }
  return OkStatus();
}

bool LiveSandbox::RollBackVolume() {
  if (volume_guard_ == nullptr || !volume_guard_->RollBackIfOver(Breached())) return false;
  hashes_.clear();
  return true;
}

}  // namespace coderunner::sandboxes
