// The CLI's exit codes: a job's own exit code is mirrored; what the job
// did not decide itself maps to the conventions of timeout(1) and shells.
// Pure functions; thread-safe.
#ifndef CODERUNNER_CLI_EXIT_CODES_H_
#define CODERUNNER_CLI_EXIT_CODES_H_

#include <nlohmann/json.hpp>
#include <string_view>

namespace coderunner::cli {

// A command line the client cannot use (exit kExitUsage).
inline constexpr char kReasonUsage[] = "usage";

inline constexpr int kExitUsage = 2;        // Bad command line.
inline constexpr int kExitTimeout = 124;    // Wall clock or CPU time exceeded (as timeout(1)).
inline constexpr int kExitError = 125;      // coderunner, the engine or HTTP failed; nothing ran.
inline constexpr int kExitCancelled = 130;  // The job was cancelled (as if interrupted).
inline constexpr int kExitOom = 137;        // Memory limit exceeded (128 + SIGKILL).
inline constexpr int kExitFailed = 1;       // Failed without an exit code of its own.

// The exit code for a job result ({"status","exit_code","signal",...}, as
// in /v1/execute, a job record's "result", or a sandbox call):
//   succeeded          0 (or its exit_code)
//   failed             128 + signal if killed by one, else its exit_code,
//                      else 1 (stopped for breaking an /output bound)
//   timeout            124
//   oom                137
//   cancelled          130
//   error, or anything unrecognised: 125
int ExitCodeForResult(const nlohmann::json& result);

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_EXIT_CODES_H_
