#include "mcp_messages.h"

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/utf8.h"

namespace coderunner::cli {
namespace {

using nlohmann::json;

// How much of a body that is not JSON an error message quotes.
constexpr size_t kQuotedBodyBytes = 200;

JsonBounds MessageBounds() {
  JsonBounds bounds;
  bounds.max_bytes = static_cast<int64_t>(kMaxMcpMessageBytes);
  return bounds;
}

std::string Compact(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

bool IsValidId(const json& id) { return id.is_string() || id.is_number_integer(); }

// What a message is called in a diagnostic: its method, or "response <id>".
std::string Describe(const McpMessage& m) {
  return m.kind == McpMessageKind::kResponse ? "response " + Compact(m.id) : m.method;
}

RelayOutcome Failure(const McpMessage& sent, const std::string& why, int code,
                     const json& data = nullptr) {
  RelayOutcome out;
  if (sent.kind == McpMessageKind::kRequest) {
    out.lines.push_back(ErrorResponseLine(sent.id, code, why, data));
  } else {
    out.diagnostic = "coderunner mcp: " + Describe(sent) + ": " + why;
  }
  return out;
}

// "HTTP 401 (unauthenticated): invalid API key" from the REST error shape
// or a JSON-RPC error, else "HTTP 502: <the body's start>". `code` gets
// the REST error code when there is one.
std::string HttpErrorText(int http_status, const json& body_json, std::string_view body,
                          std::string* code) {
  std::string message;
  if (body_json.is_object() && body_json.contains("error") && body_json["error"].is_object()) {
    const json& e = body_json["error"];
    if (e.contains("code") && e["code"].is_string()) *code = e["code"].get<std::string>();
    if (e.contains("message") && e["message"].is_string()) message = e["message"];
  } else {
    std::string start(body.substr(0, kQuotedBodyBytes));
    while (!start.empty() && (start.back() == '\n' || start.back() == '\r')) start.pop_back();
    message = SanitizeUtf8(start);
  }
  std::string text = "HTTP " + std::to_string(http_status);
  if (!code->empty()) text += " (" + *code + ")";
  if (!message.empty()) text += ": " + message;
  return text;
}

}  // namespace

ClientLine ParseClientLine(std::string_view line) {
  ClientLine out;
  if (IsBlank(line)) return out;
  auto parsed = ParseBoundedJson(line, MessageBounds());
  if (!parsed.ok()) {
    out.reply =
        ErrorResponseLine(nullptr, kJsonRpcParseError, "Parse error: " + parsed.status().message());
    return out;
  }
  json& j = *parsed;
  bool is_object = j.is_object();
  bool has_id = is_object && j.contains("id");
  bool has_method = is_object && j.contains("method") && j["method"].is_string();
  json id = has_id && IsValidId(j["id"]) ? j["id"] : json();
  bool bad_method = is_object && j.contains("method") && !has_method;
  if (!is_object || bad_method || (!has_method && !has_id) ||
      (has_method && has_id && id.is_null())) {
    out.reply = ErrorResponseLine(
        id, kJsonRpcInvalidRequest,
        "Invalid Request: expected one JSON-RPC message (an object with a string \"method\" "
        "and an integer or string \"id\", or a response)");
    return out;
  }
  McpMessage m;
  m.kind = has_method ? (has_id ? McpMessageKind::kRequest : McpMessageKind::kNotification)
                      : McpMessageKind::kResponse;
  if (has_id) m.id = j["id"];
  if (has_method) m.method = j["method"].get<std::string>();
  if (j.contains("params")) m.params = std::move(j["params"]);
  m.text = std::string(line);
  out.message = std::move(m);
  return out;
}

std::string ErrorResponseLine(const json& id, int code, const std::string& message,
                              const json& data) {
  json error = {{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = data;
  return Compact(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

std::string OverlongLineReply(size_t max_bytes) {
  return ErrorResponseLine(
      nullptr, kJsonRpcParseError,
      "Parse error: a message longer than " + std::to_string(max_bytes) + " bytes was skipped");
}

std::vector<json> ServerMessages(std::string_view text) {
  std::vector<json> messages;
  json j = ParseBoundedJsonOrDiscarded(text, MessageBounds());
  if (j.is_object()) {
    messages.push_back(std::move(j));
  } else if (j.is_array()) {
    for (json& m : j) {
      if (m.is_object()) messages.push_back(std::move(m));
    }
  }
  return messages;
}

std::string MessageLine(const json& message) { return Compact(message); }

bool IsResponseTo(const json& message, const json& id) {
  return message.is_object() && !message.contains("method") &&
         (message.contains("result") || message.contains("error")) && message.contains("id") &&
         message["id"] == id;
}

std::string NegotiatedProtocolVersion(const json& message) {
  if (!message.is_object() || !message.contains("result")) return "";
  const json& result = message["result"];
  if (!result.is_object() || !result.contains("protocolVersion")) return "";
  const json& version = result["protocolVersion"];
  return version.is_string() ? version.get<std::string>() : "";
}

std::optional<json> CancelledRequestId(const McpMessage& message) {
  if (message.kind != McpMessageKind::kNotification ||
      message.method != "notifications/cancelled" || !message.params.is_object() ||
      !message.params.contains("requestId")) {
    return std::nullopt;
  }
  return message.params["requestId"];
}

RelayOutcome OutcomeForAnswer(const McpMessage& sent, int http_status, std::string_view body) {
  std::string status = "HTTP " + std::to_string(http_status);
  if (http_status >= 200 && http_status < 300) {
    if (IsBlank(body)) {
      if (sent.kind != McpMessageKind::kRequest) return {};
      return Failure(sent, "the server answered " + status + " without a response",
                     kRelayServerError);
    }
    RelayOutcome out;
    for (const json& m : ServerMessages(body)) out.lines.push_back(Compact(m));
    if (!out.lines.empty()) return out;
    return Failure(sent, "the server answered " + status + " with no JSON-RPC message",
                   kRelayServerError);
  }
  json body_json = ParseBoundedJsonOrDiscarded(body, MessageBounds());
  if (sent.kind == McpMessageKind::kRequest && IsResponseTo(body_json, sent.id)) {
    return RelayOutcome{{Compact(body_json)}, ""};
  }
  std::string code;
  std::string text = HttpErrorText(http_status, body_json, body, &code);
  json data = {{"http_status", http_status}};
  if (!code.empty()) data["code"] = code;
  bool refused_key = http_status == 401 || http_status == 403;
  return Failure(sent, text, refused_key ? kRelayAuthError : kRelayServerError, data);
}

RelayOutcome OutcomeForFailure(const McpMessage& sent, const std::string& why) {
  return Failure(sent, why, kRelayServerError);
}

}  // namespace coderunner::cli
