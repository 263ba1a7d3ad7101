// The `coderunner` command line: dispatches to `serve` (the service) or to
// a client subcommand (run, intent, sandbox) and prints usage.
#ifndef CODERUNNER_CLI_CLI_MAIN_H_
#define CODERUNNER_CLI_CLI_MAIN_H_

#include <functional>
#include <string>

namespace coderunner::cli {

// Starts the service with a config path ("" = built-in defaults) and
// returns its exit code. Supplied by main(), which wires the service.
using ServeFunction = std::function<int(const std::string& config_path)>;

// Runs the command line `argv` (argv[0] is the program) and returns the
// exit code: `serve` via `serve`; usage errors print one line and return 2;
// `--help` on its own or after a subcommand prints usage and returns 0.
// Reads CODERUNNER_CONFIG, CODERUNNER_URL and CODERUNNER_API_KEY from the
// environment. Call once, from the main thread.
int Main(int argc, char** argv, const ServeFunction& serve);

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_CLI_MAIN_H_
