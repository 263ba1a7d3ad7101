#include "mcp_server.h"

#include <string>

#include "coderunner/common/utf8.h"

#ifndef CODERUNNER_VERSION
#define CODERUNNER_VERSION "unknown"
#endif

namespace coderunner::api::mcp {
namespace {

using nlohmann::json;

constexpr char kInstructions[] =
    "coderunner runs untrusted code in sandboxes: no network, a read-only root, an unprivileged "
    "uid, hard limits. Use run_code for a one-shot program, the sandbox_* tools to keep state "
    "between calls, and read files a program wrote under /output as resources.";

json Capabilities() {
  return {{"tools", {{"listChanged", false}}},
          {"resources", {{"listChanged", false}, {"subscribe", false}}},
          {"prompts", {{"listChanged", false}}},
          {"logging", json::object()}};
}

json InvalidParams(const Message& m, const std::string& what) {
  return ErrorMessage(m.id, kInvalidParams, what);
}

}  // namespace

StatusOr<std::pair<std::shared_ptr<McpSession>, json>> McpServer::Initialize(
    const auth::Principal& caller, const Message& request) {
  std::string asked = request.params.value("protocolVersion", std::string());
  std::string version = NegotiateVersion(asked);
  CR_ASSIGN_OR_RETURN(std::shared_ptr<McpSession> session, sessions_.Open(caller.tenant, version));
  json result = {
      {"protocolVersion", version},
      {"capabilities", Capabilities()},
      {"serverInfo",
       {{"name", "coderunner"}, {"title", "coderunner"}, {"version", CODERUNNER_VERSION}}},
      {"instructions", kInstructions}};
  return std::make_pair(std::move(session), ResultMessage(request.id, std::move(result)));
}

json McpServer::Answer(const auth::Principal& caller, McpSession& session, const Message& m) {
  const std::string& method = m.method;
  if (method == "ping") return ResultMessage(m.id, json::object());
  if (method == "tools/list") return ResultMessage(m.id, {{"tools", tools_.List()}});
  if (method == "resources/list") return ResultMessage(m.id, resources_.List(caller.tenant));
  if (method == "resources/templates/list") return ResultMessage(m.id, resources_.Templates());
  if (method == "prompts/list") return ResultMessage(m.id, McpResources::Prompts());
  if (method == "resources/read") {
    auto uri = m.params.find("uri");
    if (uri == m.params.end() || !uri->is_string())
      return InvalidParams(m, "uri: expected a string");
    auto read = resources_.Read(caller.tenant, uri->get<std::string>());
    if (read.ok()) return ResultMessage(m.id, std::move(*read));
    int code = read.status().code() == StatusCode::kNotFound ? kResourceNotFound : kInvalidParams;
    return ErrorMessage(m.id, code, read.status().message());
  }
  if (method == "prompts/get") {
    auto name = m.params.find("name");
    if (name == m.params.end() || !name->is_string())
      return InvalidParams(m, "name: expected a string");
    auto prompt =
        McpResources::Prompt(name->get<std::string>(), m.params.value("arguments", json::object()));
    if (!prompt.ok()) return InvalidParams(m, prompt.status().message());
    return ResultMessage(m.id, std::move(*prompt));
  }
  if (method == "logging/setLevel") {
    int rank = LogLevelRank(m.params.value("level", std::string()));
    if (rank < 0)
      return InvalidParams(m, "level: expected debug, info, notice, warning, error, ...");
    session.SetLogLevel(rank);
    return ResultMessage(m.id, json::object());
  }
  if (method == "initialize") {
    return ErrorMessage(m.id, kInvalidRequest, "the session is already initialized");
  }
  return ErrorMessage(m.id, kMethodNotFound,
                      "method not found: " + SanitizeUtf8(method.substr(0, 128)));
}

std::optional<json> McpServer::CallTool(const auth::Principal& caller, McpSession& session,
                                        const Message& m, ToolCall::Notify notify) {
  auto name = m.params.find("name");
  if (name == m.params.end() || !name->is_string())
    return InvalidParams(m, "name: expected a string");
  json arguments = m.params.value("arguments", json::object());
  if (!arguments.is_object()) return InvalidParams(m, "arguments: expected an object");
  std::optional<json> progress_token;
  if (auto meta = m.params.find("_meta"); meta != m.params.end() && meta->is_object()) {
    if (auto t = meta->find("progressToken");
        t != meta->end() && (t->is_string() || t->is_number_integer())) {
      progress_token = *t;
    }
  }
  std::shared_ptr<CancelToken> cancel = session.Track(m.id);
  ToolCall call(caller, arguments, session, *cancel, std::move(progress_token), std::move(notify));
  auto outcome = tools_.Call(name->get<std::string>(), call);
  session.Untrack(m.id);
  if (!outcome.ok()) return InvalidParams(m, outcome.status().message());
  if (outcome->cancelled) return std::nullopt;
  return ResultMessage(m.id, std::move(outcome->result));
}

void McpServer::Notice(McpSession& session, const Message& m) {
  if (m.method != "notifications/cancelled") return;
  auto id = m.params.find("requestId");
  if (id != m.params.end() && (id->is_string() || id->is_number_integer())) session.Cancel(*id);
}

}  // namespace coderunner::api::mcp
