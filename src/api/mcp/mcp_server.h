// McpServer: the Model Context Protocol's methods over coderunner
// (docs/mcp.md), whatever carries them. The HTTP transport (mcp_routes.h)
// hands it each parsed message with the caller its key named and the
// session its Mcp-Session-Id named; the stdio transport is the CLI
// relaying to that route. Private to src/api.
#ifndef CODERUNNER_API_MCP_MCP_SERVER_H_
#define CODERUNNER_API_MCP_MCP_SERVER_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "coderunner/auth/authenticator.h"
#include "coderunner/common/status.h"
#include "mcp_protocol.h"
#include "mcp_resources.h"
#include "mcp_session.h"
#include "mcp_tools.h"

namespace coderunner::api::mcp {

// Thread-safe; `sessions` outlives it.
class McpServer {
 public:
  McpServer(McpTools tools, McpResources resources, McpSessions& sessions)
      : tools_(std::move(tools)), resources_(std::move(resources)), sessions_(sessions) {}

  // initialize from `caller`: a new session and the response to send with
  // its id. McpSessions::Open's errors (the tenant's bound).
  StatusOr<std::pair<std::shared_ptr<McpSession>, nlohmann::json>> Initialize(
      const auth::Principal& caller, const Message& request);

  // The response to `request` (anything but initialize and tools/call).
  nlohmann::json Answer(const auth::Principal& caller, McpSession& session, const Message& request);

  // tools/call: runs the tool, handing each notification it sends
  // (progress, logging) to `notify` as it goes. The response, or nullopt
  // when the client cancelled the call (none is sent then).
  std::optional<nlohmann::json> CallTool(const auth::Principal& caller, McpSession& session,
                                         const Message& request, ToolCall::Notify notify);

  // A notification from the client: notifications/cancelled stops the
  // request it names; the others need nothing.
  void Notice(McpSession& session, const Message& notification);

 private:
  McpTools tools_;
  McpResources resources_;
  McpSessions& sessions_;
};

}  // namespace coderunner::api::mcp

#endif  // CODERUNNER_API_MCP_MCP_SERVER_H_
