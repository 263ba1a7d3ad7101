// ContainerRunner after its engine went away while a job ran: the container
// usually lives on (Docker's shim, Podman's conmon) and ends on its own, so
// its end is taken from the engine once it returns, as crash recovery does
// (jobs/recovery.cc), rather than calling the job an error at once.
#include "engine_loss.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "coderunner/engine/transport.h"
#include "coderunner/isolation/container_runner.h"

namespace coderunner::isolation {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kFirstPause{100};
constexpr std::chrono::milliseconds kLongestPause{2000};
// A running container is waited on in slices, so a cancel is seen.
constexpr std::chrono::milliseconds kWaitSlice{1000};
constexpr std::chrono::milliseconds kCancelPoll{50};
// The engine's status of a container that was created and never started.
constexpr char kNeverStarted[] = "created";

bool Cancelled(const RunHooks& hooks) {
  return hooks.cancel != nullptr && hooks.cancel->cancelled();
}

// Sleeps `pause`, or less when the run is cancelled meanwhile.
void PauseUnlessCancelled(const RunHooks& hooks, std::chrono::milliseconds pause) {
  for (auto until = Clock::now() + pause; Clock::now() < until && !Cancelled(hooks);) {
    std::this_thread::sleep_for(std::min(kCancelPoll, pause));
  }
}

bool Unreachable(const Status& s) {
  return !s.ok() && s.code() == StatusCode::kUnavailable &&
         s.reason() == engine::kReasonEngineUnavailable;
}

}  // namespace

bool EngineLost(const Status& stream, const Status& inspected) {
  return Unreachable(stream) || Unreachable(inspected);
}

bool StartOutcomeUnknown(const Status& start_failure) { return Unreachable(start_failure); }

void NoteEngineLoss(RunResult& result) {
  if (result.reported_by_init) return;  // init's trailer came: the output is whole.
  result.output_lost = true;
  const bool program_end =
      result.status == RunStatus::kSucceeded || result.status == RunStatus::kFailed;
  if (!program_end || result.signal == 0) return;
  result.status = RunStatus::kError;
  result.error = UnavailableError(
      "the engine went away while the job ran; when it returned, the container had been "
      "ended by signal " +
          std::to_string(result.signal) + ", the program's or the engine's own (unknown)",
      engine::kReasonEngineUnavailable);
}

std::optional<engine::ContainerState> ContainerRunner::AwaitEndAfterEngineLoss(
    const JobSpec& job, const std::string& id, Supervised& sv, const RunHooks& hooks) {
  spdlog::warn("job {}: the engine went away while it ran; waiting for it to return", job.id);
  const auto give_up = Clock::now() + options_.engine_return_wait;
  const auto deadline = sv.run_start + std::chrono::milliseconds(job.limits.timeout_ms);
  auto pause = kFirstPause;
  while (!Cancelled(hooks)) {
    auto state = containers_.Inspect(id);
    // Never started (a start call lost on its way): nothing ran.
    if (state.ok() && state->status == kNeverStarted) return std::nullopt;
    if (state.ok() && !state->running) return std::move(*state);
    if (state.ok()) {
      // Back, and the job still runs unwatched: it ends on its own, or is
      // stopped at its deadline as Supervise would have.
      const auto now = Clock::now();
      if (now < deadline) {
        auto slice = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
        (void)containers_.Wait(id, std::min(slice + std::chrono::milliseconds(1), kWaitSlice));
        continue;
      }
      sv.timed_out = true;
      (void)containers_.Kill(id, "USR1");
      if (!containers_.Wait(id, options_.stop_grace).ok()) (void)containers_.Kill(id);
      (void)containers_.Wait(id, options_.kill_grace);
      auto ended = containers_.Inspect(id);
      if (ended.ok() && !ended->running) return std::move(*ended);
      return std::nullopt;
    }
    // Gone (the engine lost it), or away for longer than we wait.
    if (!Unreachable(state.status()) || Clock::now() >= give_up) return std::nullopt;
    PauseUnlessCancelled(hooks, pause);
    pause = std::min(pause * 2, kLongestPause);
  }
  sv.cancelled = true;
  return std::nullopt;
}

}  // namespace coderunner::isolation
