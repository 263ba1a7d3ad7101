// The client subcommands. Each talks to the service through `client`,
// writes the job's outputs to stdout/stderr, and returns the process's exit
// code (see exit_codes.h); errors are printed to stderr as one line. Each
// call blocks until its job is done; none keeps state between calls.
#ifndef CODERUNNER_CLI_COMMANDS_H_
#define CODERUNNER_CLI_COMMANDS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api_client.h"
#include "args.h"
#include "console.h"

namespace coderunner::cli {

// What every command is given besides its arguments.
struct CommandContext {
  const ApiClient* client = nullptr;  // Not owned; outlives the call.
  bool progress = false;              // Draw progress on stderr (it is a terminal).
};

// POST /v1/jobs of `body` (bytes that are not UTF-8 replaced): the job's
// id, or the service's error (Internal when it answered without an id).
StatusOr<std::string> SubmitJob(const CommandContext& ctx, const nlohmann::json& body);

// After an interrupt (CatchInterrupts): cancels job `id` (DELETE
// /v1/jobs/{id}), says so on stderr and returns kExitCancelled (130).
int CancelInterruptedJob(const CommandContext& ctx, const std::string& id);

// Waits for job `id`'s final record through GET /v1/jobs/{id}/wait in short
// slices (a job of any length, no long-held request) and stores it in
// `*record`; returns nullopt then. Otherwise returns the command's exit code
// with `spinner` stopped: after an interrupt the job is cancelled
// (CancelInterruptedJob); a service error is reported with `what` (e.g.
// "job <id>") as its context.
std::optional<int> AwaitRecord(const CommandContext& ctx, const std::string& id,
                               const std::string& what, Spinner& spinner, nlohmann::json* record);

// `run`: submits the program, waits, prints stdout and stderr byte for
// byte (or the record with --json); exit code as ExitCodeForResult.
// Ctrl-C (SIGINT) or SIGTERM while it waits cancels the job.
int RunCommand(const RunArgs& args, const CommandContext& ctx);

// `judge`: submits the program with the cases of the directory (judge_cases.h),
// waits, prints each case's verdict, run time and memory and the summary (or
// the record with --json). 0 when every case is accepted; 1 otherwise (a
// compile error prints the compiler's messages on stderr); 125 when the
// service could not judge it. Ctrl-C (SIGINT) or SIGTERM cancels the job.
int JudgeCommand(const JudgeArgs& args, const CommandContext& ctx);

// `intent`: submits the intent, shows its four stages as they change (on
// a terminal), then prints the answer (or the record with --json). 0 when
// the intent succeeded; else the error on stderr and the exit code of its
// last run (ExitCodeForResult; 1 if that was 0), or 125 if nothing ran.
// Ctrl-C (SIGINT) or SIGTERM while it waits cancels the intent.
int IntentCommand(const IntentArgs& args, const CommandContext& ctx);

// `sandbox create|exec|rm|ls`: create prints the id, exec prints the
// call's stdout and stderr with its exit code mirrored, rm prints the id,
// ls one line per sandbox (id, state, language, expires_at).
int SandboxCommand(const SandboxArgs& args, const CommandContext& ctx);

// `mcp`: the MCP stdio transport for the server's /mcp (McpRelay): JSON-RPC
// lines from stdin go to the server, its messages to stdout, one a line.
// Returns 0 when stdin ends (after the requests in flight, for at most a
// minute) or on SIGINT/SIGTERM (at once), having ended the session.
int McpCommand(const McpArgs& args, const CommandContext& ctx);

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_COMMANDS_H_
