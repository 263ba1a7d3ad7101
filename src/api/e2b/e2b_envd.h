// The calls an E2B SDK makes into a sandbox (its "envd": processes, files):
// who makes them, and how the Connect protocol answers them. Private to
// src/api.
#ifndef CODERUNNER_API_E2B_E2B_ENVD_H_
#define CODERUNNER_API_E2B_E2B_ENVD_H_

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "coderunner/auth/authenticator.h"
#include "coderunner/common/bounded_json.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "e2b/e2b_routes.h"

namespace coderunner::api::e2b {

// One call into a sandbox, its caller checked.
struct EnvdCall {
  auth::Principal who;  // The sandbox's tenant, with the tier it was created under.
  std::string sandbox_id;
  sandboxes::ExecTarget target;
};

// The sandbox E2b-Sandbox-Id names, if X-Access-Token is its token
// (compared in constant time) and its tenant is within its request rate;
// then where its processes run (counts as a use of it). Refusals: no
// sandbox named, or a wrong token, "unauthenticated" (401: nothing of the
// body is read); an unknown sandbox NotFound; over the rate
// "rate_limited".
StatusOr<EnvdCall> ResolveEnvdCall(const E2bDeps& deps, const httplib::Request& req);

// A unary Connect method: `call` gets the caller and the request message
// (bounded JSON) and returns the response message, or a Status answered as
// a Connect error ({"code","message"} under the code's HTTP status).
using UnaryMethod =
    std::function<StatusOr<nlohmann::json>(const EnvdCall& call, const nlohmann::json& request)>;
httplib::Server::Handler Unary(const E2bDeps& deps, UnaryMethod method);

// Writes `status` as a unary Connect error.
void ReplyConnectError(httplib::Response& res, const Status& status);

// Writes a server stream that failed before its first message: HTTP 200,
// then only an end-of-stream envelope carrying `status`; but a caller
// without the sandbox's token gets 401 and JSON, as on a unary call (the
// SDK reads a stream's 401 as "unauthenticated").
void ReplyStreamError(httplib::Response& res, const Status& status);

// The bounds a body of an E2B call is parsed within (server.max_json_depth,
// server.max_body_bytes).
JsonBounds BodyBounds(const config::Config& config);

// The one message of a streaming request's body, as bounded JSON.
StatusOr<nlohmann::json> StreamRequestMessage(const E2bDeps& deps, const httplib::Request& req);

inline constexpr char kConnectStreamType[] = "application/connect+json";

}  // namespace coderunner::api::e2b

#endif  // CODERUNNER_API_E2B_E2B_ENVD_H_
