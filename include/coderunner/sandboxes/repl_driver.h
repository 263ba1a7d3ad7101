// The REPL drivers that keep an interpreter alive inside a stateful sandbox,
// and the framed protocol the service speaks with them.
#ifndef CODERUNNER_SANDBOXES_REPL_DRIVER_H_
#define CODERUNNER_SANDBOXES_REPL_DRIVER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/isolation/job_spec.h"

namespace coderunner::sandboxes {

// Names in the sandbox's workspace (mounted read-only at /workspace): the
// FIFO the service writes calls into, and the driver script.
inline constexpr const char* kChannelFifo = ".coderunner-in";

// How one language's sandbox runs: the driver file (written into the
// workspace as `workspace_name`), its source, and the container command.
struct ReplDriver {
  std::string workspace_name;        // e.g. ".coderunner-repl.py".
  std::string_view source;           // Static data.
  std::vector<std::string> command;  // e.g. {"python3", "-u", "/workspace/...", FIFO}.
  bool interrupts_calls = false;     // A timed-out call keeps the state.
  bool allows_nul = true;            // Code may contain NUL bytes.
  // The packages its `pip install` or `npm install` takes through the
  // service ("python", "npm"), and the shims that ask for them, each a
  // driver file written into the workspace's kShimDir; "" and none for
  // bash.
  std::string package_ecosystem;
  std::vector<std::pair<std::string, std::string>> shims;  // {name on PATH, DriverSource file}.
};

// The workspace directory of a sandbox's pip and npm shims, first on every
// container's PATH (a job's workspace has none).
inline constexpr const char* kShimDir = ".coderunner-bin";

// The driver for `language`: python, javascript, typescript and bash are
// supported; the interpreter is the first word of the language's command (so
// a swapped image keeps its own), except typescript's: JavaScript's driver
// run by node with --typescript, compiling each cell with the esbuild of the
// tsx on PATH. Other languages: InvalidArgument
// "sandbox_language_unsupported". Pure; thread-safe.
StatusOr<ReplDriver> DriverFor(const isolation::LanguageSpec& language);

// Source of a driver file ("repl.py", "repl.js", "repl.sh"); empty if
// unknown. Generated at build time from src/sandboxes/repl/.
std::string_view DriverSource(std::string_view file);

// One call frame: "CRX1", the payload length (uint32, little-endian), then
// nonce NUL timeout_ms NUL code. Pure.
std::string EncodeCall(std::string_view nonce, int64_t timeout_ms, std::string_view code);

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_REPL_DRIVER_H_
