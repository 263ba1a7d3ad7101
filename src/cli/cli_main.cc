#include "coderunner/cli/cli_main.h"

#include <signal.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <vector>

#include "commands.h"
#include "console.h"
#include "exit_codes.h"

namespace coderunner::cli {
namespace {

constexpr const char* kUsage =
    "usage: coderunner <command> [options]\n"
    "\n"
    "commands:\n"
    "  serve     run the service\n"
    "  run       run a program file in a fresh container and print its output\n"
    "  judge     judge a program file against a directory of test cases\n"
    "  intent    turn a plain-English task into a program, run it, print the answer\n"
    "  sandbox   create, use, list and remove stateful sandboxes\n"
    "  mcp       serve MCP over stdio, relayed to the service's /mcp (for MCP clients)\n"
    "\n"
    "'coderunner <command> --help' describes each. The client commands talk to\n"
    "the service at --server URL, else $CODERUNNER_URL, else http://127.0.0.1:8080,\n"
    "with the API key in $CODERUNNER_API_KEY (if any).\n";

constexpr const char* kServeUsage =
    "usage: coderunner serve [--config PATH]\n"
    "  --config PATH   YAML config (default: $CODERUNNER_CONFIG, else built-in defaults)\n";

constexpr const char* kClientOptions =
    "  --server URL    the service (default: $CODERUNNER_URL, else http://127.0.0.1:8080)\n"
    "  --json          print the whole record as JSON instead of the outputs\n"
    "  -h, --help      this help\n"
    "The API key comes from $CODERUNNER_API_KEY (sent as Authorization: Bearer).\n";

constexpr const char* kExitCodes =
    "exit code: the program's own; 128+N if killed by signal N; 124 on timeout;\n"
    "137 out of memory; 130 cancelled; 125 if coderunner itself failed (the\n"
    "error is printed on stderr); 2 for bad usage.\n";

constexpr const char* kRunUsage =
    "usage: coderunner run [options] FILE|- [-- ARG...]\n"
    "Runs FILE (or the program on stdin, with -) in a fresh container and writes\n"
    "its stdout and stderr, byte for byte, to ours.\n"
    "  --lang L        python, javascript, typescript or bash (default: from FILE's\n"
    "                  extension: .py, .js/.mjs, .ts/.mts, .sh/.bash)\n"
    "  --stdin F       the program's stdin from file F (- for ours; not with a\n"
    "                  program read from stdin); default: empty\n"
    "  --file PATH     attach a file; it appears in the job's working directory\n"
    "                  under PATH if that is relative, else under its name (repeatable)\n"
    "  --arg A         an argument for the program (repeatable; or after --)\n"
    "  --timeout MS    wall-clock limit in ms\n"
    "  --memory BYTES  memory limit in bytes\n";

constexpr const char* kJudgeUsage =
    "usage: coderunner judge [options] FILE CASES_DIR\n"
    "Judges FILE against the cases of CASES_DIR: each NAME.in (the case's stdin;\n"
    "none: empty) with NAME.out or NAME.ans (the output expected). The service\n"
    "builds the program once and runs each case in a fresh container; one line\n"
    "per case (verdict, run time, peak memory), then the verdict.\n"
    "  --lang L        the language (default: from FILE's extension)\n"
    "  --compare MODE  exact, trailing_whitespace (default), tokens or numbers\n"
    "  --tolerance X   numbers: equal within X, absolute or relative (default 1e-6)\n"
    "  --stop          stop at the first case not accepted (the rest: skipped)\n"
    "  --timeout MS    wall-clock limit of each case in ms\n"
    "  --memory BYTES  memory limit of each case in bytes\n"
    "  --server URL    the service (default: $CODERUNNER_URL, else http://127.0.0.1:8080)\n"
    "  --json          print the whole record as JSON instead of the verdicts\n"
    "  -h, --help      this help\n"
    "The API key comes from $CODERUNNER_API_KEY (sent as Authorization: Bearer).\n"
    "exit code: 0 when every case is accepted, 1 when one is not, 125 if the\n"
    "service could not judge it, 130 cancelled, 2 for bad usage.\n";

constexpr const char* kIntentUsage =
    "usage: coderunner intent [options] \"TASK\" [--input NAME=VALUE ...]\n"
    "Asks the service's model for a program that does TASK, runs it, and prints\n"
    "the answer. On a terminal the four stages (discover_agent, generate_code,\n"
    "execute, format_result) are shown on stderr as they progress.\n"
    "  --input N=V     a named input; V is taken as JSON if it parses (1, true,\n"
    "                  [1,2], {\"k\":1}, \"text\"), else as a string (repeatable)\n"
    "  --lang L        python, javascript, typescript or bash (default: the service\n"
    "                  decides)\n"
    "  --verify V      off, checks (the model's checks run with its program) or full\n"
    "                  (and it judges the answer); default: the service's setting\n";

constexpr const char* kSandboxUsage =
    "usage: coderunner sandbox create [--lang L] [--ttl S]   prints the new id\n"
    "       coderunner sandbox exec ID [FILE|-|-c CODE] [--file PATH] [--timeout MS]\n"
    "       coderunner sandbox ls\n"
    "       coderunner sandbox rm ID\n"
    "A sandbox keeps its state (variables, imports, /tmp) between exec calls.\n"
    "exec reads the code from FILE, from stdin (- or nothing), or from -c, prints\n"
    "the call's stdout and stderr and mirrors its exit code.\n";

constexpr const char* kMcpUsage =
    "usage: coderunner mcp [--server URL]\n"
    "The MCP stdio transport for an MCP client (a desktop assistant, an IDE, an\n"
    "agent): reads JSON-RPC messages from stdin, one a line, sends each to the\n"
    "service's /mcp, and writes every message the service sends back to stdout,\n"
    "one a line; diagnostics go to stderr. Requests run concurrently (at most 16\n"
    "at once). When stdin ends it waits up to a minute for the requests in\n"
    "flight, ends the session and exits 0; SIGINT or SIGTERM do so at once.\n"
    "  --server URL    the service (default: $CODERUNNER_URL, else http://127.0.0.1:8080)\n"
    "  -h, --help      this help\n"
    "The API key comes from $CODERUNNER_API_KEY (sent as Authorization: Bearer).\n";

int Help(const std::string& text, bool client) {
  WriteOut(text);
  if (client) {
    WriteOut(std::string("common options:\n") + kClientOptions + kExitCodes);
  }
  return 0;
}

// The client all commands share, from --server, $CODERUNNER_URL and
// $CODERUNNER_API_KEY.
ApiClient MakeClient(const CommonArgs& common) {
  std::string url = common.server;
  const char* env_url = std::getenv("CODERUNNER_URL");
  if (url.empty() && env_url != nullptr) url = env_url;
  if (url.empty()) url = kDefaultServerUrl;
  const char* key = std::getenv("CODERUNNER_API_KEY");
  return ApiClient(url, key != nullptr ? key : "");
}

int Serve(const std::vector<std::string>& args, const ServeFunction& serve) {
  const char* env = std::getenv("CODERUNNER_CONFIG");
  auto parsed = ParseServeArgs(args, env != nullptr ? env : "");
  if (!parsed.ok()) {
    WriteErr(parsed.status().message() + "\n" + kServeUsage);
    return kExitUsage;
  }
  if (parsed->help) return Help(kServeUsage, false);
  return serve(parsed->config_path);
}

// `usage` is the command's help; the common options and exit codes follow
// it when `common_help` (the job commands).
template <typename Args, typename Command>
int Client(const StatusOr<Args>& parsed, const char* usage, Command command,
           bool common_help = true) {
  if (!parsed.ok()) return ReportError(parsed.status());
  if (parsed->common.help) return Help(usage, common_help);
  ApiClient client = MakeClient(parsed->common);
  CommandContext ctx{&client, StderrIsTty()};
  try {
    return command(*parsed, ctx);
  } catch (const nlohmann::json::exception& e) {
    // An answer of an unexpected shape (another version of the service).
    return ReportError(
        InternalError(std::string("unexpected answer from the service: ") + e.what()));
  }
}

}  // namespace

int Main(int argc, char** argv, const ServeFunction& serve) {
  std::string command = argc > 1 ? argv[1] : "";
  std::vector<std::string> rest;
  for (int i = 2; i < argc; ++i) rest.emplace_back(argv[i]);
  if (command == "serve") return Serve(rest, serve);
  if (command == "--help" || command == "-h" || command == "help") return Help(kUsage, false);
  // A reader that goes away (| head) ends us quietly, not by SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  if (command == "run") return Client(ParseRunArgs(rest), kRunUsage, RunCommand);
  if (command == "judge") return Client(ParseJudgeArgs(rest), kJudgeUsage, JudgeCommand, false);
  if (command == "intent") return Client(ParseIntentArgs(rest), kIntentUsage, IntentCommand);
  if (command == "sandbox") return Client(ParseSandboxArgs(rest), kSandboxUsage, SandboxCommand);
  if (command == "mcp") return Client(ParseMcpArgs(rest), kMcpUsage, McpCommand, false);
  WriteErr(command.empty()
               ? std::string(kUsage)
               : "coderunner: unknown command '" + command + "' (see coderunner --help)\n");
  return kExitUsage;
}

}  // namespace coderunner::cli
