#include "coderunner/api/server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "auth_adapter.h"
#include "authorize.h"
#include "code_runner_gate.h"
#include "coderunner/common/disk_room.h"
#include "coderunner/common/logging.h"
#include "coderunner/engine/transport.h"
#include "e2b/e2b_json.h"
#include "e2b/e2b_routes.h"
#include "http_reply.h"
#include "http_status.h"
#include "info_route.h"
#include "intents_routes.h"
#include "jobs_routes.h"
#include "judge0_routes.h"
#include "language_entry.h"
#include "mcp/mcp_routes.h"
#include "native_routes.h"
#include "nodes_route.h"
#include "openapi.h"
#include "owner_forwarder.h"
#include "piston_request.h"
#include "piston_routes.h"
#include "response_headers.h"
#include "route.h"
#include "sandbox_fusion_routes.h"
#include "sandboxes_routes.h"
#include "ui_routes.h"
#include "volumes_routes.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

constexpr const char* kRequestIdHeader = "X-Request-Id";

// The longest a probe (/readyz, /v1/languages) waits for the engine and the
// store; past it, the answer is 503 (probe_cache.h). Room for a loaded
// engine to inspect every image; a stalled one answers nothing anyway.
constexpr std::chrono::milliseconds kProbeWaitBound{5000};

// The answer of a probe whose check did not end within kProbeWaitBound.
ProbeAnswer ProbeOverdue(const char* what) {
  Status s = UnavailableError(std::string(what) +
                                  " not known: the engine or the job store did not answer within " +
                                  std::to_string(kProbeWaitBound.count()) + " ms",
                              engine::kReasonEngineUnavailable);
  return {HttpStatusFor(s), ErrorJson(s).dump()};
}

// When the request this thread handles arrived, for the access line.
thread_local std::chrono::steady_clock::time_point request_started;

// Gives the request its id (the caller's X-Request-Id when usable), echoes
// it, and makes it the thread's for every line logged meanwhile. Also
// called for answers httplib makes before routing (bad HTTP), where no
// pre-routing handler ran.
void TagRequest(const httplib::Request& req, httplib::Response& res) {
  if (res.has_header(kRequestIdHeader)) return;
  std::string id = RequestIdFor(req.get_header_value(kRequestIdHeader));
  res.set_header(kRequestIdHeader, id);
  SetRequestId(std::move(id));
}

// An error answer in the shape the path's clients read: Piston's
// {"message"} beside our {"error"} under /api/v2/ (also /api/v2/piston/),
// a JSON-RPC error at /mcp, E2B's {"code","message"} under /e2b.
json EdgeErrorJson(const httplib::Request& req, const Status& s) {
  if (req.path == "/mcp") return McpErrorJson(s);
  if (req.path.rfind("/e2b/", 0) == 0) return e2b::ControlErrorJson(HttpStatusFor(s), s);
  return req.path.rfind("/api/v2/", 0) == 0 ? PistonErrorJson(s) : ErrorJson(s);
}

// Every request body is JSON within these bounds before a handler sees it,
// and only a caller with a valid key (every body route asks for one) makes
// the service parse it; the handler then authorizes that caller (rate
// limit) without checking its key again (Admission).
BodyPolicy BodyPolicyFor(const config::Config& config, const auth::Authenticator& authenticator) {
  BodyPolicy policy;
  policy.admit = [&authenticator](const httplib::Request& req, httplib::Response& res,
                                  Admission& admission) {
    auto p = authenticator.Authenticate(PresentedCredentials(req));
    if (p.ok()) {
      admission.caller = std::move(*p);
      return true;
    }
    res.set_header("WWW-Authenticate", "Bearer");
    Reply(res, HttpStatusFor(p.status()), EdgeErrorJson(req, p.status()));
    return false;
  };
  policy.bounds.max_depth = config.server.max_json_depth;
  policy.bounds.max_bytes = config.server.max_body_bytes;
  policy.reply_error = [](const httplib::Request& req, httplib::Response& res, const Status& s) {
    Reply(res, HttpStatusFor(s), EdgeErrorJson(req, s));
  };
  return policy;
}

// Fleet mode (store.kind postgres, with a registry and placements): the
// forwarder of sandbox and artifact requests to their owner node. Bounded
// by the longest sandbox call any tier may make, plus slack for a
// container restart; and by the largest answer an owner sends (an
// artifact, or a call's JSON with both output streams escaped).
std::unique_ptr<OwnerForwarder> ForwarderFor(const ServerDeps& deps) {
  const config::Config& c = *deps.config;
  if (c.store.kind != "postgres" || deps.nodes == nullptr || deps.sandbox_owners == nullptr) {
    return nullptr;
  }
  int64_t longest_ms = c.max_limits.timeout_ms;
  for (const config::TierConfig& t : c.tiers) longest_ms = std::max(longest_ms, t.max_timeout_ms);
  ForwarderOptions options;
  options.self = c.instance;
  options.timeout_ms = 2 * longest_ms + 30000;
  options.max_body_bytes = static_cast<size_t>(
      std::max(c.artifacts.max_file_bytes, 16 * c.max_limits.output_bytes) + (1 << 20));
  // A sandbox's process streams for as long as it runs, at most as long as
  // its sandbox may live.
  int64_t longest_ttl_s = 0;
  for (const config::TierConfig& t : c.tiers)
    longest_ttl_s = std::max(longest_ttl_s, t.max_sandbox_ttl_s);
  options.stream_timeout_ms = longest_ttl_s * 1000 + 30000;
  return std::make_unique<OwnerForwarder>(deps.nodes, deps.sandbox_owners, options);
}

}  // namespace

Server::Server(ServerDeps deps)
    : deps_(deps),
      connections_(std::make_unique<ConnectionGuard>(
          ConnectionLimits{std::chrono::milliseconds(deps.config->server.request_read_timeout_ms),
                           deps.config->server.max_waiting_connections_per_address})),
      http_(std::make_unique<httplib::Server>()),
      routes_(*http_, BodyPolicyFor(*deps.config, *deps.authenticator)),
      long_requests_(deps.metrics, auth::TotalLongRequestLimit(*deps.config)),
      readyz_cache_(
          std::chrono::milliseconds(deps.config->server.probe_cache_ms), kProbeWaitBound,
          [this] { return ReadyAnswer(); }, ProbeOverdue("readiness")),
      languages_cache_(
          std::chrono::milliseconds(deps.config->server.probe_cache_ms), kProbeWaitBound,
          [this] { return LanguagesAnswer(); }, ProbeOverdue("the languages' images")) {
  const int threads = deps_.config->server.threads;
  const int max_threads = deps_.config->server.max_threads;
  // Slow and idle clients cannot hold the threads (connection_guard.h),
  // and requests that wait for a job hold threads of their own
  // (elastic_pool.h).
  http_->new_task_queue = [this, threads, max_threads] {
    return connections_->NewTaskQueue(static_cast<size_t>(threads),
                                      static_cast<size_t>(max_threads));
  };
  http_->set_payload_max_length(static_cast<size_t>(deps_.config->server.max_body_bytes));
  bool runs_code = deps_.config->code_runner.enabled;
  http_->set_pre_routing_handler([runs_code](const httplib::Request& req, httplib::Response& res) {
    request_started = std::chrono::steady_clock::now();
    ClearRequestId();
    TagRequest(req, res);
    // code_runner.enabled: false: the one gate of every route that runs code.
    if (!runs_code && RunsCode(req.method, req.path)) {
      Status off = CodeRunnerDisabledError();
      Reply(res, HttpStatusFor(off), EdgeErrorJson(req, off));
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  Routes();
  Hooks();
}

Server::~Server() = default;

void Server::Routes() {
  auth::RateLimiter* limiter =
      deps_.rate_limiter != nullptr ? deps_.rate_limiter : &local_rate_limiter_;
  AuthAdapter auth(
      AuthDeps{deps_.authenticator, limiter, &long_requests_, deps_.config, deps_.metrics});
  routes_.Get("/healthz", auth.Open([](const httplib::Request&) -> StatusOr<Answer> {
    return Answer::Json(200, {{"status", "ok"}});
  }));

  // Both ask the engine and need no key: answered from a short cache
  // computed off the request path (probe_cache.h), so an anonymous flood
  // makes at most one engine check per server.probe_cache_ms, and a stalled
  // engine holds no thread past kProbeWaitBound.
  routes_.Get("/readyz", auth.Open([this](const httplib::Request&) -> StatusOr<Answer> {
    ProbeAnswer a = readyz_cache_.Get();
    return Answer::Text(a.status, a.body);
  }));

  routes_.Get("/v1/languages", auth.Open([this](const httplib::Request&) -> StatusOr<Answer> {
    ProbeAnswer a = languages_cache_.Get();
    return Answer::Text(a.status, a.body);
  }));

  RegisterInfoRoute(routes_, *deps_.config,
                    {!native() && deps_.sandboxes != nullptr, !native() && deps_.volumes != nullptr,
                     deps_.config->mcp.enabled, E2bServed()},
                    auth);

  routes_.Get("/openapi.json", auth.Open([](const httplib::Request&) -> StatusOr<Answer> {
    return Answer::Text(200, std::string(OpenApiDocument()));
  }));

  forwarder_ = ForwarderFor(deps_);
  RegisterJobRoutes(routes_, *deps_.jobs, auth, forwarder_.get());
  routes_.Get("/metrics", auth.Open([this](const httplib::Request&) -> StatusOr<Answer> {
    return Answer::Text(200, MetricsText(), "text/plain; version=0.0.4");
  }));
  RegisterIntentRoutes(routes_, *deps_.jobs, deps_.agents, auth);
  if (native()) {
    RegisterNativeRefusals(routes_, auth);
  } else if (deps_.volumes != nullptr) {
    RegisterVolumeRoutes(routes_, *deps_.volumes, *deps_.config, auth);
  }
  if (deps_.sandboxes != nullptr && !native()) {
    RegisterSandboxRoutes(routes_, *deps_.sandboxes, *deps_.config, auth, forwarder_.get());
    if (E2bServed()) {
      RegisterE2bRoutes(routes_,
                        E2bDeps{deps_.config, deps_.sandboxes, deps_.sandbox_processes,
                                deps_.sandbox_files, limiter, deps_.metrics, forwarder_.get()},
                        auth);
    }
  }
  if (deps_.config->mcp.enabled) McpRoutes(auth);
  RegisterNodesRoute(routes_, deps_.nodes, auth);
  RegisterPistonRoutes(routes_, *deps_.jobs, auth);
  RegisterJudge0Routes(routes_, *deps_.jobs, auth);
  RegisterSandboxFusionRoutes(routes_, *deps_.jobs, auth);
  if (deps_.config->ui.enabled) RegisterUiRoutes(routes_, auth);
}

bool Server::E2bServed() const {
  return !native() && deps_.sandboxes != nullptr && deps_.config->e2b.enabled &&
         deps_.sandbox_processes != nullptr && deps_.sandbox_files != nullptr;
}

void Server::Hooks() {
  // Every answer, whatever made it (a route, the error handler, a stream),
  // carries the browser-safety headers; a route's own CSP (a download's,
  // the playground page's) is kept.
  http_->set_post_routing_handler(
      [](const httplib::Request&, httplib::Response& res) { AddApiSecurityHeaders(res); });

  // Turns httplib's own error answers (unknown route, body too large, bad
  // HTTP) into our JSON shape. Handlers' answers already have a body.
  http_->set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        TagRequest(req, res);
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        Status s;
        if (res.status == 404) {
          s = NotFoundError("no route for " + req.method + " " + req.path, "not_found");
        } else if (res.status == 413) {
          s = InvalidArgumentError("request body exceeds the limit", kReasonBodyTooLarge);
        } else {
          s = InvalidArgumentError("bad HTTP request", "bad_request");
        }
        Reply(res, res.status, EdgeErrorJson(req, s));
        return httplib::Server::HandlerResponse::Handled;
      }));

  http_->set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        spdlog::error("{} {}: unhandled exception: {}", req.method, req.path, what);
        ReplyError(res, InternalError("internal error: " + what, "internal"));
      });

  // The access line, written after the answer went out; it carries the
  // request id like every line the handler logged. Then the thread is free
  // for the next request (keep-alive or another connection).
  http_->set_logger([](const httplib::Request& req, const httplib::Response& res) {
    // The response is out: the connection waits for its next request.
    ConnectionGuard::MarkWaiting();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - request_started)
                  .count();
    if (req.path == "/healthz" || req.path == "/readyz") {
      spdlog::debug("{} {} -> {} ({} ms)", req.method, req.path, res.status, ms);
    } else {
      spdlog::info("{} {} -> {} ({} ms)", req.method, req.path, res.status, ms);
    }
    ClearRequestId();
  });
}

std::string Server::MetricsText() {
  MetricsRegistry& metrics = *deps_.metrics;
  deps_.jobs->UpdateScrapeGauges(metrics);
  return metrics.RenderPrometheus();
}

ProbeAnswer Server::ReadyAnswer() {
  Status ready = CheckReady();
  json body = ready.ok() ? json{{"status", "ready"}} : ErrorJson(ready);
  if (native()) {
    body["runtime"] = "native";
    body["warning"] = kNativeWarning;
  }
  return ProbeAnswer{ready.ok() ? 200 : HttpStatusFor(ready), body.dump()};
}

ProbeAnswer Server::LanguagesAnswer() {
  json langs = json::array();
  for (const auto& l : deps_.config->languages) {
    auto info = deps_.images->Inspect(l.image);
    if (!info.ok() && info.status().code() == StatusCode::kUnavailable) {
      return {HttpStatusFor(info.status()), ErrorJson(info.status()).dump()};
    }
    langs.push_back(LanguageEntry(l, info, &l == &deps_.config->DefaultLanguage()));
  }
  return {200, json{{"languages", langs}}.dump()};
}

Status Server::CheckReady() {
  // A node whose store is down can accept nothing: say so first.
  if (deps_.store != nullptr) {
    Status store_ping = deps_.store->Ping();
    if (!store_ping.ok()) {
      return UnavailableError("job store not reachable: " + store_ping.message(),
                              store::kReasonStoreUnavailable);
    }
  }
  // Nor one without room to run what it accepts (every submission gets 507).
  CR_RETURN_IF_ERROR(
      CheckDiskRoom(deps_.config->JobWriteDirs(), deps_.config->jobs.disk_reserve_bytes));
  Status ping = deps_.system->Ping();
  if (!ping.ok()) {
    return UnavailableError("engine not reachable: " + ping.message(),
                            engine::kReasonEngineUnavailable);
  }
  if (native()) return OkStatus();  // Jobs use no image.
  std::string missing;
  for (const auto& l : deps_.config->languages) {
    auto info = deps_.images->Inspect(l.image);
    if (info.ok()) continue;
    if (info.status().code() != StatusCode::kNotFound) {
      return UnavailableError("image check failed: " + info.status().message(),
                              engine::kReasonEngineUnavailable);
    }
    missing += (missing.empty() ? "" : "; ") + std::string("language ") + l.name + ": image " +
               l.image + " is missing";
  }
  if (!missing.empty()) {
    return UnavailableError(missing +
                                " (build them offline with images/build.sh, then "
                                "images/build-compilers.sh, or pull an upstream "
                                "image and set languages.<name>.image)",
                            "image_missing");
  }
  return OkStatus();
}

Status Server::Bind() {
  const std::string& listen = deps_.config->server.listen;
  size_t colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
    return InvalidArgumentError("server.listen: bad port in '" + listen + "'", "invalid_config");
  }
  if (port == 0) {
    port_ = http_->bind_to_any_port(host);
    if (port_ < 0) return UnavailableError("cannot bind " + listen, "bind_failed");
  } else {
    if (!http_->bind_to_port(host, port)) {
      return UnavailableError("cannot bind " + listen + " (in use or not permitted)",
                              "bind_failed");
    }
    port_ = port;
  }
  connections_->Watch(port_);
  return OkStatus();
}

Status Server::Serve() {
  if (!http_->listen_after_bind()) return InternalError("HTTP server stopped with an error");
  return OkStatus();
}

void Server::McpRoutes(const AuthAdapter& auth) {
  const config::Config& config = *deps_.config;
  mcp_sessions_ = std::make_unique<mcp::McpSessions>(
      config.mcp.max_sessions_per_tenant, std::chrono::seconds(config.mcp.session_idle_s));
  sandboxes::SandboxManager* sandboxes = native() ? nullptr : deps_.sandboxes;
  mcp::ToolDeps tools{&config,
                      deps_.jobs,
                      sandboxes,
                      forwarder_.get(),
                      deps_.agents != nullptr && deps_.jobs->intents_enabled(),
                      [this] { return languages_cache_.Get(); }};
  mcp_server_ = std::make_unique<mcp::McpServer>(mcp::McpTools(std::move(tools), auth),
                                                 mcp::McpResources(config, *deps_.jobs, sandboxes),
                                                 *mcp_sessions_);
  RegisterMcpRoutes(routes_, *mcp_server_, *mcp_sessions_, config.mcp, auth);
}

void Server::Stop() {
  // Ends the sessions' GET streams, which would otherwise hold their
  // threads until their clients leave.
  if (mcp_sessions_) mcp_sessions_->CloseAll();
  http_->stop();
}

}  // namespace coderunner::api
