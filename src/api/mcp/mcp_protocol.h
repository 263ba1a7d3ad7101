// The JSON-RPC 2.0 layer of the Model Context Protocol (docs/mcp.md): what
// a message is, the error codes, and the protocol revisions this server
// speaks. Pure values and functions; private to src/api.
#ifndef CODERUNNER_API_MCP_MCP_PROTOCOL_H_
#define CODERUNNER_API_MCP_MCP_PROTOCOL_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::api::mcp {

// JSON-RPC error codes (the protocol's faults only: a program's failure or
// a refused run is a tool result with isError).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// A resource that does not exist (the specification's choice for
// resources/read).
inline constexpr int kResourceNotFound = -32002;

// The revision a client that asks for one we do not speak is offered.
inline constexpr char kDefaultProtocolVersion[] = "2025-06-18";

// Whether this server speaks `version` ("2025-03-26", "2025-06-18",
// "2025-11-25").
bool IsSupportedVersion(std::string_view version);

// The revision to answer an initialize asking for `requested` with: the
// same when supported, else kDefaultProtocolVersion.
std::string NegotiateVersion(std::string_view requested);

// One message a client sent.
struct Message {
  enum class Kind { kRequest, kNotification, kResponse };
  Kind kind = Kind::kRequest;
  nlohmann::json id;   // A request's or response's id (string or integer); null else.
  std::string method;  // A request's or notification's method.
  nlohmann::json params = nlohmann::json::object();  // Always an object.
};

// The message `body` holds. InvalidArgument (reason "invalid_request") when
// it is not a single JSON-RPC 2.0 request, notification or response (a
// batch, an array, is refused: one message per POST since 2025-06-18).
StatusOr<Message> ReadMessage(const nlohmann::json& body);

// A response carrying `result`.
nlohmann::json ResultMessage(const nlohmann::json& id, nlohmann::json result);
// A response carrying error `code` with `message`.
nlohmann::json ErrorMessage(const nlohmann::json& id, int code, std::string_view message);
// A notification of `method` with `params`.
nlohmann::json NotificationMessage(std::string_view method, nlohmann::json params);

// A text key for a request id (its JSON dump: "7" and "\"7\"" differ, as
// the ids do).
std::string RequestKey(const nlohmann::json& id);

// The logging levels of logging/setLevel, least severe first; -1 for a
// name that is none of them.
int LogLevelRank(std::string_view level);

}  // namespace coderunner::api::mcp

#endif  // CODERUNNER_API_MCP_MCP_PROTOCOL_H_
