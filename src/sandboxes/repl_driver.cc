#include "coderunner/sandboxes/repl_driver.h"

namespace coderunner::sandboxes {

StatusOr<ReplDriver> DriverFor(const isolation::LanguageSpec& language) {
  const std::string interpreter = language.command.empty() ? "" : language.command.front();
  const std::string fifo = "/workspace/" + std::string(kChannelFifo);
  ReplDriver d;
  if (language.name == "python") {
    d.workspace_name = ".coderunner-repl.py";
    d.source = DriverSource("repl.py");
    // -u: the driver's markers and the user's prints share the pipes.
    d.command = {interpreter.empty() ? "python3" : interpreter, "-u",
                 "/workspace/" + d.workspace_name, fifo};
    d.interrupts_calls = true;
    d.package_ecosystem = "python";
    d.shims = {{"pip", "pip.py"}, {"pip3", "pip.py"}};
  } else if (language.name == "javascript") {
    d.workspace_name = ".coderunner-repl.js";
    d.source = DriverSource("repl.js");
    d.command = {interpreter.empty() ? "node" : interpreter, "/workspace/" + d.workspace_name,
                 fifo};
    d.interrupts_calls = true;
    d.package_ecosystem = "npm";
    d.shims = {{"npm", "npm.js"}};
  } else if (language.name == "typescript") {
    // JavaScript's driver, compiling each cell with the esbuild tsx uses.
    // The language's interpreter is tsx: the driver itself runs on node.
    d.workspace_name = ".coderunner-repl.js";
    d.source = DriverSource("repl.js");
    d.command = {"node", "/workspace/" + d.workspace_name, "--typescript", fifo};
    d.interrupts_calls = true;
    d.package_ecosystem = "npm";
    d.shims = {{"npm", "npm.js"}};
  } else if (language.name == "bash") {
    d.workspace_name = ".coderunner-repl.sh";
    d.source = DriverSource("repl.sh");
    d.command = {interpreter.empty() ? "bash" : interpreter, "/workspace/" + d.workspace_name,
                 fifo};
    // Bash cannot interrupt a running command of its own: a timed-out call
    // restarts the sandbox. Its variables cannot hold NUL either.
    d.interrupts_calls = false;
    d.allows_nul = false;
  } else {
    return InvalidArgumentError(
        "sandboxes support python, javascript, typescript and bash, not " + language.name,
        "sandbox_language_unsupported");
  }
  if (d.source.empty()) return InternalError("REPL driver for " + language.name + " missing");
  return d;
}

std::string EncodeCall(std::string_view nonce, int64_t timeout_ms, std::string_view code) {
  std::string payload;
  payload.reserve(nonce.size() + code.size() + 24);
  payload.append(nonce);
  payload.push_back('\0');
  payload.append(std::to_string(timeout_ms));
  payload.push_back('\0');
  payload.append(code);
  std::string frame = "CRX1";
  uint32_t n = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) frame.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  frame += payload;
  return frame;
}

}  // namespace coderunner::sandboxes
