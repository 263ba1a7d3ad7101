#include "mcp_routes.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "coderunner/common/bounded_json.h"
#include "http_reply.h"
#include "http_status.h"
#include "mcp_protocol.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

constexpr char kMcpPath[] = "/mcp";
constexpr char kSessionHeader[] = "Mcp-Session-Id";
constexpr char kVersionHeader[] = "MCP-Protocol-Version";
constexpr char kEventStream[] = "text/event-stream";
// A GET stream says it is alive this often, so that proxies keep it.
constexpr auto kKeepAliveEvery = std::chrono::seconds(15);
// How long a GET stream's writer waits at a time before checking again.
constexpr auto kStreamSlice = std::chrono::milliseconds(1000);

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "host" of "host:port", "[::1]:port", "[::1]" or "host".
std::string HostName(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    return Lower(
        authority.substr(0, close == std::string_view::npos ? authority.size() : close + 1));
  }
  return Lower(authority.substr(0, authority.find(':')));
}

bool HostAllowed(const config::McpConfig& config, std::string_view authority) {
  std::string host = HostName(authority);
  if (host.empty()) return false;
  if (host == "localhost" || host == "127.0.0.1" || host == "[::1]") return true;
  for (const auto& allowed : config.allowed_hosts) {
    if (allowed == "*" || Lower(allowed) == host) return true;
  }
  return false;
}

// A JSON-RPC error as the body of an HTTP error (the transport's faults),
// with `reason` as error.data.code, as McpErrorJson gives.
Answer RpcError(int http_status, const json& id, int code, const std::string& message,
                const char* reason) {
  json body = mcp::ErrorMessage(id, code, message);
  body["error"]["data"] = {{"code", reason}};
  return Answer::Json(http_status, std::move(body));
}

// The same for a refusal the REST API names by reason: its HTTP status,
// the request's id, the reason as the error's data.
Answer RpcRefusal(const json& id, const Status& status) {
  json body = McpErrorJson(status);
  body["id"] = id;
  return Answer::Json(HttpStatusFor(status), std::move(body));
}

void ReplyMcpError(httplib::Response& res, const Status& status) {
  SetRetryAfter(res, status);
  Reply(res, HttpStatusFor(status), McpErrorJson(status));
}

bool Accepts(const httplib::Request& req, std::string_view type) {
  std::string accept = Lower(req.get_header_value("Accept"));
  return accept.find(type) != std::string::npos || accept.find("*/*") != std::string::npos;
}

// What every /mcp request must pass first; nullopt when it does.
std::optional<Answer> CheckTransport(const config::McpConfig& config, const httplib::Request& req) {
  if (!McpHostAndOriginAllowed(config, req.get_header_value("Host"),
                               req.get_header_value("Origin"))) {
    return Answer::Json(
        403, McpErrorJson(FailedPreconditionError(
                 "Host or Origin not accepted for /mcp (DNS-rebinding protection): add it to "
                 "mcp.allowed_hosts or mcp.allowed_origins",
                 kReasonMcpOriginRefused)));
  }
  if (req.has_header(kVersionHeader) &&
      !mcp::IsSupportedVersion(req.get_header_value(kVersionHeader))) {
    return RpcError(400, nullptr, mcp::kInvalidRequest,
                    "unsupported MCP-Protocol-Version (this server speaks 2025-03-26, "
                    "2025-06-18 and 2025-11-25)",
                    kReasonMcpProtocolVersion);
  }
  return std::nullopt;
}

// The session the request's Mcp-Session-Id names for `tenant`, or the
// answer that refuses it (400 without one, 404 when unknown).
StatusOr<std::shared_ptr<mcp::McpSession>> SessionOf(mcp::McpSessions& sessions,
                                                     const httplib::Request& req,
                                                     const std::string& tenant) {
  if (!req.has_header(kSessionHeader)) {
    return InvalidArgumentError("the Mcp-Session-Id header is required after initialize",
                                "mcp_session_required");
  }
  return sessions.Find(req.get_header_value(kSessionHeader), tenant);
}

Answer SessionRefusal(const json& id, const Status& status) {
  int http = status.code() == StatusCode::kNotFound ? 404 : 400;
  json body = mcp::ErrorMessage(id, -32001, status.message());
  body["error"]["data"] = {{"code", status.reason()}};
  return Answer::Json(http, std::move(body));
}

std::string SseEvent(const json& message) {
  return "event: message\ndata: " + message.dump(-1, ' ', false, json::error_handler_t::replace) +
         "\n\n";
}

}  // namespace

json McpErrorJson(const Status& status) {
  int code = -32000;
  if (status.reason() == kInvalidJson) {
    code = mcp::kParseError;
  } else if (status.code() == StatusCode::kInvalidArgument) {
    code = mcp::kInvalidRequest;
  }
  json body = mcp::ErrorMessage(nullptr, code, status.message());
  body["error"]["data"] = {{"code", status.reason()}};
  return body;
}

bool McpHostAndOriginAllowed(const config::McpConfig& config, std::string_view host,
                             std::string_view origin) {
  if (!HostAllowed(config, host)) return false;
  if (origin.empty()) return true;
  for (const auto& allowed : config.allowed_origins) {
    if (Lower(allowed) == Lower(origin)) return true;
  }
  size_t scheme = origin.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string_view authority = origin.substr(scheme + 3);
  return HostAllowed(config, authority.substr(0, authority.find('/')));
}

namespace {

// A GET stream's hold on its session's stream count.
struct StreamLease {
  explicit StreamLease(std::shared_ptr<mcp::McpSession> s) : session(std::move(s)) {}
  ~StreamLease() { session->CloseStream(); }
  std::shared_ptr<mcp::McpSession> session;
  std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
  bool opened = false;
};

// tools/call's answer: an SSE stream of its notifications, then its
// response (none when cancelled), then the end of the stream. The tool
// runs as the stream is written, on the connection's thread.
Answer ToolStream(mcp::McpServer& server, const auth::Principal& p,
                  std::shared_ptr<mcp::McpSession> session, mcp::Message message) {
  auto ran = std::make_shared<bool>(false);
  return Answer::Stream(kEventStream,
                        [&server, p, session, message = std::move(message), ran](
                            size_t, httplib::DataSink& sink) {
                          if (*ran) return false;
                          *ran = true;
                          auto write = [&sink](const json& m) {
                            std::string event = SseEvent(m);
                            sink.write(event.data(), event.size());
                          };
                          auto response = server.CallTool(p, *session, message, write);
                          if (response) write(*response);
                          sink.done();
                          return true;
                        })
      .WithHeader("Cache-Control", "no-cache");
}

StatusOr<Answer> PostAnswer(mcp::McpServer& server, mcp::McpSessions& sessions,
                            const config::McpConfig& config, const auth::Principal& p,
                            const httplib::Request& req, const json& body) {
  if (auto refused = CheckTransport(config, req)) return std::move(*refused);
  if (!Accepts(req, "application/json") || !Accepts(req, kEventStream)) {
    return RpcError(406, nullptr, mcp::kInvalidRequest,
                    "Accept must include application/json and text/event-stream",
                    kReasonMcpNotAcceptable);
  }
  if (req.body.empty()) {
    return RpcError(400, nullptr, mcp::kParseError, "empty body: expected one JSON-RPC message",
                    kInvalidJson);
  }
  auto message = mcp::ReadMessage(body);
  if (!message.ok())
    return RpcError(400, nullptr, mcp::kInvalidRequest, message.status().message(),
                    "invalid_request");
  using Kind = mcp::Message::Kind;
  if (message->kind == Kind::kRequest && message->method == "initialize") {
    auto opened = server.Initialize(p, *message);
    if (!opened.ok()) return RpcRefusal(message->id, opened.status());
    std::string id = opened->first->id();
    return Answer::Json(200, std::move(opened->second)).WithHeader(kSessionHeader, id);
  }
  auto session = SessionOf(sessions, req, p.tenant);
  if (!session.ok()) return SessionRefusal(message->id, session.status());
  if (message->kind == Kind::kNotification) server.Notice(**session, *message);
  if (message->kind != Kind::kRequest) return Answer::Text(202, "");
  if (message->method == "tools/call") {
    return ToolStream(server, p, std::move(*session), std::move(*message));
  }
  return Answer::Json(200, server.Answer(p, **session, *message));
}

StatusOr<Answer> GetAnswer(mcp::McpSessions& sessions, const config::McpConfig& config,
                           const AuthAdapter& auth, const auth::Principal& p,
                           const httplib::Request& req) {
  if (auto refused = CheckTransport(config, req)) return std::move(*refused);
  if (!Accepts(req, kEventStream)) {
    return RpcError(406, nullptr, mcp::kInvalidRequest, "Accept must include text/event-stream",
                    kReasonMcpNotAcceptable);
  }
  auto session = SessionOf(sessions, req, p.tenant);
  if (!session.ok()) return SessionRefusal(nullptr, session.status());
  CR_ASSIGN_OR_RETURN(auto slot, auth.HoldLongRequest(p));
  if (!(*session)->OpenStream()) {
    return RpcRefusal(nullptr, ResourceExhaustedError(
                                   "the session already has " +
                                       std::to_string(mcp::kMaxStreamsPerSession) + " GET streams",
                                   "mcp_streams_exhausted"));
  }
  auto lease = std::make_shared<StreamLease>(std::move(*session));
  return Answer::Stream(kEventStream,
                        [lease, slot](size_t, httplib::DataSink& sink) {
                          auto now = std::chrono::steady_clock::now();
                          if (!lease->opened || now - lease->last_write >= kKeepAliveEvery) {
                            static constexpr char kComment[] = ": coderunner\n\n";
                            if (!sink.write(kComment, sizeof(kComment) - 1)) return false;
                            lease->opened = true;
                            lease->last_write = now;
                          }
                          if (lease->session->WaitClosed(kStreamSlice)) sink.done();
                          return true;
                        })
      .WithHeader("Cache-Control", "no-cache");
}

StatusOr<Answer> DeleteAnswer(mcp::McpSessions& sessions, const config::McpConfig& config,
                              const auth::Principal& p, const httplib::Request& req) {
  if (auto refused = CheckTransport(config, req)) return std::move(*refused);
  if (!req.has_header(kSessionHeader)) {
    return SessionRefusal(nullptr, InvalidArgumentError("the Mcp-Session-Id header is required",
                                                        "mcp_session_required"));
  }
  Status closed = sessions.Close(req.get_header_value(kSessionHeader), p.tenant);
  if (!closed.ok()) return SessionRefusal(nullptr, closed);
  return Answer::Json(200, json::object());
}

}  // namespace

void RegisterMcpRoutes(RouteTable& http, mcp::McpServer& server, mcp::McpSessions& sessions,
                       const config::McpConfig& config, const AuthAdapter& rest_auth) {
  AuthAdapter auth = rest_auth.WithErrors(ReplyMcpError);
  http.Post(kMcpPath, auth.WrapJson([&server, &sessions, &config](const auth::Principal& p,
                                                                  const httplib::Request& req,
                                                                  const json& body) {
    return PostAnswer(server, sessions, config, p, req, body);
  }));
  http.Get(kMcpPath, auth.Wrap([&sessions, &config, auth](const auth::Principal& p,
                                                          const httplib::Request& req) {
    return GetAnswer(sessions, config, auth, p, req);
  }));
  http.Delete(kMcpPath, auth.Wrap([&sessions, &config](const auth::Principal& p,
                                                       const httplib::Request& req) {
    return DeleteAnswer(sessions, config, p, req);
  }));
}

}  // namespace coderunner::api
