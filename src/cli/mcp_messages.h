// The JSON-RPC side of `coderunner mcp`: what a line from the MCP client
// is, and which lines an answer from the server turns into. Pure
// functions: no I/O, thread-safe. Every line returned is one compact JSON
// message without a '\n'.
#ifndef CODERUNNER_CLI_MCP_MESSAGES_H_
#define CODERUNNER_CLI_MCP_MESSAGES_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coderunner::cli {

// JSON-RPC 2.0 error codes the relay answers with itself.
inline constexpr int kJsonRpcParseError = -32700;      // Not JSON, or too long.
inline constexpr int kJsonRpcInvalidRequest = -32600;  // JSON, but not one message.
// The server could not be reached, or answered with an HTTP error.
inline constexpr int kRelayServerError = -32000;
// The server refused the key (HTTP 401 or 403).
inline constexpr int kRelayAuthError = -32001;

// The longest message either way (the service's default body cap).
inline constexpr size_t kMaxMcpMessageBytes = size_t{16} << 20;

enum class McpMessageKind {
  kRequest,       // "method" and "id": the server owes a response.
  kNotification,  // "method", no "id".
  kResponse,      // "id" and no "method": the client answering a server request.
};

// One message from the client, as it goes to the server.
struct McpMessage {
  McpMessageKind kind = McpMessageKind::kNotification;
  nlohmann::json id;      // Requests and responses; null for a notification.
  std::string method;     // Requests and notifications; "" for a response.
  nlohmann::json params;  // The "params" member, null when absent.
  std::string text;       // The line exactly as read: the POST body.
};

// A line from the client: a message to forward, or else `reply` (an error
// line to write back at once). Both empty for a blank line (skipped).
struct ClientLine {
  std::optional<McpMessage> message;
  std::string reply;
};

// Parses one line from the client: JSON (bounded like the service's
// bodies) holding one object with a string "method", or an "id" and no
// "method". Not JSON: reply is a -32700 error with id null. Other JSON (a
// batch, a scalar, an object that is neither): -32600 with the object's id
// if it has one, else null.
ClientLine ParseClientLine(std::string_view line);

// A JSON-RPC error response: {"jsonrpc":"2.0","id":id,"error":{"code",
// "message"[,"data"]}} (data only when not null).
std::string ErrorResponseLine(const nlohmann::json& id, int code, const std::string& message,
                              const nlohmann::json& data = nullptr);

// The reply to a line longer than `max_bytes` (-32700, id null).
std::string OverlongLineReply(size_t max_bytes);

// The messages in what the server sent (an SSE event's data or a JSON
// body; bounded like the client's lines): the object, or each object of
// an array of them; none for anything else (not JSON, a scalar, empty).
std::vector<nlohmann::json> ServerMessages(std::string_view text);

// `message` as one compact line (no '\n'; bytes that are not UTF-8, which
// a parsed message cannot hold anyway, as U+FFFD).
std::string MessageLine(const nlohmann::json& message);

// True when `message` is a response ("result" or "error", no "method")
// whose id equals `id`.
bool IsResponseTo(const nlohmann::json& message, const nlohmann::json& id);

// result.protocolVersion of an initialize response; "" when absent.
std::string NegotiatedProtocolVersion(const nlohmann::json& message);

// The requestId of a notifications/cancelled, when `message` is one.
std::optional<nlohmann::json> CancelledRequestId(const McpMessage& message);

// What to do with an answer: lines for stdout, and a diagnostic for stderr
// ("" for none).
struct RelayOutcome {
  std::vector<std::string> lines;
  std::string diagnostic;
};

// The outcome of a complete (not streamed) HTTP answer to `sent`:
//   2xx with a JSON body       its messages (ServerMessages), as lines;
//   2xx with no body           nothing for a notification or response; for
//                              a request, an error (the server owes one);
//   2xx with any other body    an error for a request, else a diagnostic;
//   any other status           for a request: the body itself when it is a
//                              JSON-RPC response to the same id, else an
//                              error (-32001 for 401 and 403, else -32000)
//                              naming the status and the server's error
//                              code and message, with data {"http_status",
//                              "code"?}; for anything else a diagnostic.
RelayOutcome OutcomeForAnswer(const McpMessage& sent, int http_status, std::string_view body);

// The outcome when no answer came (unreachable, a broken or exhausted
// stream): for a request an error (-32000) with message `why`; for
// anything else the diagnostic `why`.
RelayOutcome OutcomeForFailure(const McpMessage& sent, const std::string& why);

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_MCP_MESSAGES_H_
