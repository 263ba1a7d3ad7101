// Command-line parsing for the client subcommands (run, intent, sandbox)
// and for serve. Pure functions: no I/O, thread-safe. A parse error is
// InvalidArgument with a one-line message; the caller prints it and exits 2.
#ifndef CODERUNNER_CLI_ARGS_H_
#define CODERUNNER_CLI_ARGS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::cli {

// Options every client subcommand takes.
struct CommonArgs {
  std::string server;  // --server URL; "" means $CODERUNNER_URL, else the default.
  bool json = false;   // --json: print the whole record instead of the outputs.
  bool help = false;   // --help / -h.
};

// `coderunner run [options] FILE|- [-- ARG...]`.
struct RunArgs {
  CommonArgs common;
  std::string source;              // The program's path, or "-" for our stdin.
  std::string language;            // --lang; "" means: from the file's extension.
  std::string stdin_path;          // --stdin F ("-" = our stdin); "" = the job gets /dev/null.
  std::vector<std::string> files;  // --file PATH, repeatable.
  std::vector<std::string> args;   // --arg A (repeatable) and everything after "--".
  std::optional<int64_t> timeout_ms;
  std::optional<int64_t> memory_bytes;
};

// `coderunner judge [options] FILE CASES_DIR`.
struct JudgeArgs {
  CommonArgs common;
  std::string source;                   // The program's path.
  std::string cases_dir;                // NAME.in / NAME.out pairs.
  std::string language;                 // --lang; "" means: from the file's extension.
  std::string compare;                  // --compare MODE; "" leaves the service's default.
  std::optional<double> tolerance;      // --tolerance X: numbers' absolute and relative.
  bool stop = false;                    // --stop: stop at the first case not accepted.
  std::optional<int64_t> timeout_ms;    // --timeout MS, per case.
  std::optional<int64_t> memory_bytes;  // --memory BYTES, per case.
};

// `coderunner intent [options] "TEXT" [--input NAME=VALUE ...]`.
struct IntentArgs {
  CommonArgs common;
  std::string intent;
  std::string language;                      // --lang; "" lets the service decide.
  nlohmann::json inputs = nlohmann::json();  // null, or an object from --input.
  std::string verify;                        // --verify off|checks|full; "" = the service's.
};

// `coderunner sandbox create|exec|rm|ls ...`.
struct SandboxArgs {
  CommonArgs common;
  std::string action;                 // "create", "exec", "rm" or "ls" ("" only with --help).
  std::string id;                     // exec, rm.
  std::string language;               // create --lang.
  std::optional<int64_t> ttl_s;       // create --ttl.
  std::string source;                 // exec FILE or "-" ("" with -c).
  std::optional<std::string> code;    // exec -c CODE.
  std::vector<std::string> files;     // exec --file PATH.
  std::optional<int64_t> timeout_ms;  // exec --timeout.
};

// `coderunner mcp [--server URL]`.
struct McpArgs {
  CommonArgs common;  // --json does not apply: refused.
};

// `coderunner serve [--config PATH]`.
struct ServeArgs {
  std::string config_path;  // "" = built-in defaults.
  bool help = false;
};

// Each parses the arguments after the subcommand's name. Errors:
// InvalidArgument naming the option (unknown option, missing or malformed
// value, missing or extra positional argument).
StatusOr<RunArgs> ParseRunArgs(const std::vector<std::string>& argv);
StatusOr<JudgeArgs> ParseJudgeArgs(const std::vector<std::string>& argv);
StatusOr<IntentArgs> ParseIntentArgs(const std::vector<std::string>& argv);
StatusOr<SandboxArgs> ParseSandboxArgs(const std::vector<std::string>& argv);
StatusOr<McpArgs> ParseMcpArgs(const std::vector<std::string>& argv);
// `default_config` is $CODERUNNER_CONFIG (or "").
StatusOr<ServeArgs> ParseServeArgs(const std::vector<std::string>& argv,
                                   const std::string& default_config);

// The value of `--input NAME=VALUE`: VALUE as JSON when it parses as JSON
// (1, true, [1,2], {"k":1}, "quoted"), otherwise VALUE as a string.
nlohmann::json InputValue(const std::string& text);

// The language for a program file from its extension: .py python, .js and
// .mjs javascript, .ts and .mts typescript, .sh and .bash bash, .c c, .cc
// .cpp and .cxx cpp, .go go, .java java, .rs rust. InvalidArgument for
// anything else (including "-"), saying to pass --lang.
StatusOr<std::string> LanguageFromPath(const std::string& path);

// The path a local file gets in the job's working directory: `path` itself
// when it is relative and stays inside (no "..", no "." components), else
// its last component.
std::string JobPathFor(const std::string& path);

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_ARGS_H_
