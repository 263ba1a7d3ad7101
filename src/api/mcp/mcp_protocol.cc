#include "mcp_protocol.h"

#include <array>

namespace coderunner::api::mcp {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 3> kSupportedVersions = {"2025-03-26", "2025-06-18",
                                                                "2025-11-25"};
constexpr std::array<std::string_view, 8> kLogLevels = {"debug", "info",     "notice", "warning",
                                                        "error", "critical", "alert",  "emergency"};

Status Invalid(const std::string& what) {
  return InvalidArgumentError("not a JSON-RPC 2.0 message: " + what, "invalid_request");
}

bool IsValidId(const json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace

bool IsSupportedVersion(std::string_view version) {
  for (auto v : kSupportedVersions) {
    if (v == version) return true;
  }
  return false;
}

std::string NegotiateVersion(std::string_view requested) {
  return IsSupportedVersion(requested) ? std::string(requested) : kDefaultProtocolVersion;
}

StatusOr<Message> ReadMessage(const json& body) {
  if (body.is_array()) return Invalid("a batch (one message per request)");
  if (!body.is_object()) return Invalid("expected an object");
  auto version = body.find("jsonrpc");
  if (version == body.end() || *version != "2.0") return Invalid("\"jsonrpc\" must be \"2.0\"");
  Message m;
  auto method = body.find("method");
  auto id = body.find("id");
  if (method == body.end()) {
    if (id == body.end() || !IsValidId(*id)) return Invalid("a response needs an id");
    if (!body.contains("result") && !body.contains("error")) {
      return Invalid("a response needs a result or an error");
    }
    m.kind = Message::Kind::kResponse;
    m.id = *id;
    return m;
  }
  if (!method->is_string()) return Invalid("\"method\" must be a string");
  m.method = method->get<std::string>();
  if (id != body.end()) {
    if (!IsValidId(*id)) return Invalid("\"id\" must be a string or an integer");
    m.id = *id;
  } else {
    m.kind = Message::Kind::kNotification;
  }
  if (auto params = body.find("params"); params != body.end() && !params->is_null()) {
    if (!params->is_object()) return Invalid("\"params\" must be an object");
    m.params = *params;
  }
  return m;
}

json ResultMessage(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json ErrorMessage(const json& id, int code, std::string_view message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json NotificationMessage(std::string_view method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::string RequestKey(const json& id) { return id.dump(); }

int LogLevelRank(std::string_view level) {
  for (size_t i = 0; i < kLogLevels.size(); ++i) {
    if (kLogLevels[i] == level) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace coderunner::api::mcp
