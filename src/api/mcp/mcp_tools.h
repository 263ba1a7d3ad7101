// The MCP server's tools (docs/mcp.md): run_code, list_languages, the
// sandbox_* tools and execute_intent. Each call does what the same
// tenant's REST call does, through the same parsers, services, bounds and
// long-request slots: nothing an MCP client sends can do more. A program's
// failure, or a refusal the REST API would answer with an error, is a
// result with isError; only a protocol fault (an unknown tool) is a
// Status. Private to src/api.
#ifndef CODERUNNER_API_MCP_MCP_TOOLS_H_
#define CODERUNNER_API_MCP_MCP_TOOLS_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "auth_adapter.h"
#include "coderunner/api/probe_cache.h"
#include "coderunner/auth/authenticator.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "mcp_session.h"
#include "owner_forwarder.h"

namespace coderunner::api::mcp {

// One tools/call as it runs: who asked, the arguments, how to tell the
// client (on the call's own stream) and whether it was cancelled.
class ToolCall {
 public:
  using Notify = std::function<void(nlohmann::json message)>;

  ToolCall(const auth::Principal& caller, const nlohmann::json& arguments, McpSession& session,
           CancelToken& cancel, std::optional<nlohmann::json> progress_token, Notify notify)
      : caller_(caller),
        arguments_(arguments),
        session_(session),
        cancel_(cancel),
        progress_token_(std::move(progress_token)),
        notify_(std::move(notify)) {}

  const auth::Principal& caller() const { return caller_; }
  const nlohmann::json& arguments() const { return arguments_; }
  CancelToken& cancel() const { return cancel_; }

  // notifications/progress with the next count and `message`, when the
  // client asked for progress (a progressToken); else nothing.
  void Progress(const std::string& message);
  // notifications/message at `level` (a logging/setLevel name), when the
  // session's level lets it through.
  void Log(std::string_view level, const std::string& text);

 private:
  const auth::Principal& caller_;
  const nlohmann::json& arguments_;
  McpSession& session_;
  CancelToken& cancel_;
  std::optional<nlohmann::json> progress_token_;
  Notify notify_;
  int progress_ = 0;
};

// What a call ends with: the CallToolResult, or nothing when the client
// cancelled it (no response is sent then).
struct ToolOutcome {
  nlohmann::json result;
  bool cancelled = false;
};

// Everything the tools use; every pointee outlives them and is thread-safe.
struct ToolDeps {
  const config::Config* config = nullptr;
  jobs::JobService* jobs = nullptr;
  // nullptr: no sandbox tools (none configured, or code_runner.runtime
  // native).
  sandboxes::SandboxManager* sandboxes = nullptr;
  // Fleet mode: where each sandbox lives (a sandbox made here is placed
  // here, one deleted here forgotten); nullptr on one node.
  OwnerForwarder* forwarder = nullptr;
  // Execute mode is on (a model configured): execute_intent is listed.
  bool intents = false;
  // GET /v1/languages' answer (the server's cache).
  std::function<ProbeAnswer()> languages;
};

// Thread-safe.
class McpTools {
 public:
  McpTools(ToolDeps deps, AuthAdapter auth) : deps_(std::move(deps)), auth_(auth) {}

  // tools/list's "tools": those this server offers.
  nlohmann::json List() const;

  // tools/call of `name`. InvalidArgument (reason "unknown_tool") for a
  // tool this server does not offer.
  StatusOr<ToolOutcome> Call(std::string_view name, ToolCall& call) const;

 private:
  ToolOutcome RunCode(ToolCall& call) const;
  ToolOutcome ListLanguages(ToolCall& call) const;
  ToolOutcome ExecuteIntent(ToolCall& call) const;
  ToolOutcome SandboxCreate(ToolCall& call) const;
  ToolOutcome SandboxExecute(ToolCall& call) const;
  ToolOutcome SandboxList(ToolCall& call) const;
  ToolOutcome SandboxFiles(ToolCall& call) const;
  ToolOutcome SandboxDelete(ToolCall& call) const;
  // Follows job `id` of the caller's tenant to its end, telling the client
  // of each status and stage; the final record, or nullopt if the client
  // cancelled it.
  StatusOr<std::optional<store::JobRecord>> Follow(const std::string& id, ToolCall& call) const;

  ToolDeps deps_;
  AuthAdapter auth_;
};

}  // namespace coderunner::api::mcp

#endif  // CODERUNNER_API_MCP_MCP_TOOLS_H_
