// The metrics trailer coderunner-init writes as the last line of stderr, and
// the stdout end marker of a pooled job: init's answer to the service,
// written by src/init/coderunner_init.c. The service's other half of the
// protocol, the go message that starts a pooled job, is
// src/isolation/init_message.h.
#ifndef CODERUNNER_ISOLATION_INIT_TRAILER_H_
#define CODERUNNER_ISOLATION_INIT_TRAILER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace coderunner::isolation {

struct InitTrailer {
  int exit_code = 0;
  int signal = 0;
  int64_t wall_us = 0;
  int64_t cpu_us = -1;             // -1 when unknown.
  int64_t memory_peak_bytes = -1;  // -1 when unknown.
  int64_t oom_kills = -1;          // -1 when the cgroup did not say.
  int64_t output_bytes = -1;       // Sum of file sizes in /output at the end; -1 without /output.
  // What /output used at the end against its bounds: every entry's
  // allocated bytes, a file at least its size; -1 without /output (or from
  // an older init).
  int64_t output_used_bytes = -1;
  int64_t output_entries = -1;  // Entries in /output at the end; -1 without /output.
  // The bound on /output the job broke ("file_too_large", "too_large",
  // "too_many_files", "too_deep", "unreadable"); "" if none.
  std::string output_violation;
  bool output_rolled_back = false;  // Volume mode: the run's growth was undone.
  // The service's stop (its deadline) ended a job that was still running;
  // false when the program had ended on its own.
  bool stopped = false;
  // What kept the job from starting, "" if it started: "policy" (init
  // refused to run it: its seccomp filter, or a path the engine should have
  // masked), "stdin", "exec" or "fork". Never the program's fault.
  std::string start_error;
  // A case of a series: init cleared everything it left (its processes,
  // /tmp, /output, IPC objects), so the next case may run in the same
  // container. False for a container's one job.
  bool reusable = false;
  // The end nonce from the warm pool's "go" message; "" for a cold job.
  std::string eof;
  // A sandbox call the REPL driver cut short at its timeout (or on SIGINT).
  bool timed_out = false;
  size_t length = 0;  // Bytes the trailer occupies at the end of stderr.
};

// Finds a trailer that ends exactly at the end of `stderr_tail`. Returns
// nullopt if there is none (the init was killed, or never ran). Pure.
// The line coderunner-init ends stdout with when the pool's "go" message
// carried `nonce` (see src/init/coderunner_init.c).
std::string StdoutEndMarker(std::string_view nonce);

// What a prestart that loads a preload writes to the container's stdout
// once it has (src/config/python_prestart.py), before it takes its job: the
// warm pool hands such a container out only once it has seen it
// (WarmPool::Prepare), and a pooled job's stdout never shows it (a
// reused container's or a series' next prestart may print it after the
// next job's stream is taken: it then comes first, and is dropped).
inline constexpr std::string_view kPrestartReadyMarker =
    "\x1e"
    "coderunner-prestart ready\n";

std::optional<InitTrailer> ParseInitTrailer(std::string_view stderr_tail);

// Passes live stderr through while holding back anything that could still
// turn out to be the trailer, so observers never see it. Memory is bounded
// (a held span longer than any trailer is released), and so is the work per
// byte, whatever the bytes (e.g. a flood of "\x1e", the marker's first
// byte). Not thread-safe.
class TrailerFilter {
 public:
  // Longest span held back as a possible trailer, bytes.
  static constexpr size_t kMaxTrailer = 512;
  using Emit = std::function<void(std::string_view)>;
  // Emits what is certainly not the trailer, as one contiguous piece (no
  // call when there is none).
  void Feed(std::string_view bytes, const Emit& emit);
  // End of stream: emits what was held unless it is exactly a trailer.
  void Finish(const Emit& emit);

 private:
  // Where in held_ a trailer could start (held_.size() if nowhere).
  size_t FirstCandidate();
  // Whether held_ from `at` (a "\x1e") could still be exactly a trailer.
  bool CouldBeTrailer(size_t at);

  std::string held_;
  size_t newline_free_ = 0;            // Leading bytes of held_ known to hold no '\n'.
  size_t candidate_newline_free_ = 0;  // Same, for the last candidate checked.
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_INIT_TRAILER_H_
