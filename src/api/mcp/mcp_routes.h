// The Streamable HTTP transport of the MCP server (docs/mcp.md): POST, GET
// and DELETE /mcp. Checks what the transport asks of every request (Host
// and Origin against DNS rebinding, Accept, MCP-Protocol-Version, the
// session and its tenant), then hands the message to McpServer. Private to
// src/api.
#ifndef CODERUNNER_API_MCP_MCP_ROUTES_H_
#define CODERUNNER_API_MCP_MCP_ROUTES_H_

#include <httplib.h>

#include <string_view>

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/config/config.h"
#include "mcp_server.h"
#include "mcp_session.h"

namespace coderunner::api {

// Reason of a request whose Host or Origin is not accepted (403).
inline constexpr char kReasonMcpOriginRefused[] = "mcp_origin_refused";
// Reason of a request whose Accept lacks what the transport needs (406).
inline constexpr char kReasonMcpNotAcceptable[] = "mcp_not_acceptable";
// Reason of an MCP-Protocol-Version header this server does not speak (400).
inline constexpr char kReasonMcpProtocolVersion[] = "mcp_protocol_version";

// Whether a request with `host` (the Host header) and `origin` (the Origin
// header, "" when absent) passes `config`'s DNS-rebinding check: the host
// (its port aside) is a loopback name or one of mcp.allowed_hosts, and an
// origin names such a host or is one of mcp.allowed_origins. Pure.
bool McpHostAndOriginAllowed(const config::McpConfig& config, std::string_view host,
                             std::string_view origin);

// /mcp's error body for `status` (any refusal before or around a message:
// the body check, the key, the rate, the transport's own): a JSON-RPC
// error with a null id, code -32700 for a body that is not JSON, -32600
// for another bad request, -32000 otherwise, and the REST API's reason as
// error.data.code.
nlohmann::json McpErrorJson(const Status& status);

// Registers POST, GET and DELETE /mcp, each wrapped by `auth` (the REST
// API's keys, tenants and request rates), its errors written as
// McpErrorJson. `server` and `sessions` outlive
// `http`.
void RegisterMcpRoutes(RouteTable& http, mcp::McpServer& server, mcp::McpSessions& sessions,
                       const config::McpConfig& config, const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_MCP_MCP_ROUTES_H_
