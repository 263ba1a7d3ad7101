// RunInSandbox: one short process in a sandbox's container, to its end.
#ifndef CODERUNNER_SANDBOXES_SANDBOX_EXEC_H_
#define CODERUNNER_SANDBOXES_SANDBOX_EXEC_H_

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/engine/execs.h"
#include "coderunner/sandboxes/sandbox_manager.h"

namespace coderunner::sandboxes {

// The reason of a process's output over its cap (ResourceExhausted).
inline constexpr char kReasonSandboxOutputTooLarge[] = "sandbox_output_too_large";

struct ExecOutput {
  int exit_code = -1;
  std::string stdout_data;  // At most the caller's cap.
  std::string stderr_data;  // At most kExecStderrBytes.
};

// What of a short process's stderr is kept (its error message).
inline constexpr size_t kExecStderrBytes = 64 * 1024;

// Runs `command` (under the jobs' filter: UnderJobFilter) as the target's
// uid in its container (working directory
// `cwd`, "" = the image's), with the sandbox's environment, and waits for
// it at most `timeout`. Stdout past `max_stdout` bytes ends the process's
// stream: ResourceExhausted "sandbox_output_too_large". Engine failures
// keep their Status (NotFound: the container is gone).
StatusOr<ExecOutput> RunInSandbox(engine::ExecClient& execs, const ExecTarget& target,
                                  std::vector<std::string> command, const std::string& cwd,
                                  size_t max_stdout, std::chrono::milliseconds timeout);

// What every process the service starts in a sandbox runs: coderunner-init
// -x, which installs the jobs' seccomp filter, then becomes `command`. An
// engine exec is no child of the sandbox's init, so it would otherwise run
// under the engine's profile only (Docker 20.10's lets io_uring, and any
// profile lets a process of init's uid change init's limits). Pure.
std::vector<std::string> UnderJobFilter(std::vector<std::string> command);

// "NAME=value" for each of `envs`. Pure.
std::vector<std::string> EnvList(const std::map<std::string, std::string>& envs);

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_SANDBOX_EXEC_H_
