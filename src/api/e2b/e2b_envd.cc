#include "e2b/e2b_envd.h"

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/constant_time.h"
#include "e2b/connect_envelope.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;

Status NotAnObject() {
  return InvalidArgumentError("the request message must be a JSON object", "invalid_request");
}

}  // namespace

JsonBounds BodyBounds(const config::Config& config) {
  JsonBounds bounds;
  bounds.max_depth = config.server.max_json_depth;
  bounds.max_bytes = config.server.max_body_bytes;
  return bounds;
}

StatusOr<EnvdCall> ResolveEnvdCall(const E2bDeps& deps, const httplib::Request& req) {
  const std::string id = req.get_header_value("E2b-Sandbox-Id");
  if (id.empty()) {
    return InvalidArgumentError("a call into a sandbox names it in E2b-Sandbox-Id",
                                auth::kReasonUnauthenticated);
  }
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord record, deps.sandboxes->Lookup(id));
  // The code interpreter's calls but runCode carry only the traffic token,
  // which is the same token (SandboxCreatedJson).
  std::string token = req.get_header_value("X-Access-Token");
  if (token.empty()) token = req.get_header_value("E2B-Traffic-Access-Token");
  if (record.access_token.empty() || !ConstantTimeEqual(token, record.access_token)) {
    return InvalidArgumentError("X-Access-Token is not sandbox " + id + "'s access token",
                                auth::kReasonUnauthenticated);
  }
  EnvdCall call;
  call.who = auth::Principal{record.tenant, deps.config->FindTier(record.tier), false};
  call.sandbox_id = id;
  const int per_minute = call.who.tier != nullptr ? call.who.tier->requests_per_minute : 0;
  int retry_after = 1;
  if (per_minute > 0 && !deps.limiter->Allow(call.who.tenant, per_minute, &retry_after)) {
    deps.metrics->Increment("coderunner_jobs_rejected_total", {{"reason", "rate_limited"}});
    return ResourceExhaustedError("tier " + call.who.tier->name + " allows " +
                                      std::to_string(per_minute) +
                                      " requests per minute (requests_per_minute)",
                                  "rate_limited");
  }
  CR_ASSIGN_OR_RETURN(call.target, deps.sandboxes->ExecTargetOf(record.tenant, id));
  return call;
}

void ReplyConnectError(httplib::Response& res, const Status& status) {
  const json body = ConnectErrorJson(status);
  res.status = ConnectHttpStatus(body["code"].get<std::string>());
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void ReplyStreamError(httplib::Response& res, const Status& status) {
  if (status.reason() == auth::kReasonUnauthenticated) return ReplyConnectError(res, status);
  res.status = 200;
  const json end = {{"error", ConnectErrorJson(status)}};
  res.set_content(
      Envelope(kEnvelopeEndStream, end.dump(-1, ' ', false, json::error_handler_t::replace)),
      kConnectStreamType);
}

httplib::Server::Handler Unary(const E2bDeps& deps, UnaryMethod method) {
  return [deps, method = std::move(method)](const httplib::Request& req, httplib::Response& res) {
    auto call = ResolveEnvdCall(deps, req);
    if (!call.ok()) return ReplyConnectError(res, call.status());
    auto request = ParseBoundedJson(req.body.empty() ? std::string_view("{}") : req.body,
                                    BodyBounds(*deps.config));
    if (!request.ok()) return ReplyConnectError(res, request.status());
    if (!request->is_object()) return ReplyConnectError(res, NotAnObject());
    auto response = method(*call, *request);
    if (!response.ok()) return ReplyConnectError(res, response.status());
    res.status = 200;
    res.set_content(response->dump(-1, ' ', false, json::error_handler_t::replace),
                    "application/json");
  };
}

StatusOr<json> StreamRequestMessage(const E2bDeps& deps, const httplib::Request& req) {
  CR_ASSIGN_OR_RETURN(std::string_view message, SingleEnvelopedMessage(req.body));
  CR_ASSIGN_OR_RETURN(json request, ParseBoundedJson(message, BodyBounds(*deps.config)));
  if (!request.is_object()) return NotAnObject();
  return request;
}

}  // namespace coderunner::api::e2b
