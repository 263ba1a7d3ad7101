// Server: the HTTP API (cpp-httplib) in front of the runner.
#ifndef CODERUNNER_API_SERVER_H_
#define CODERUNNER_API_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "coderunner/api/connection_guard.h"
#include "coderunner/api/probe_cache.h"
#include "coderunner/api/route_table.h"
#include "coderunner/auth/authenticator.h"
#include "coderunner/auth/long_request_limiter.h"
#include "coderunner/auth/rate_limiter.h"
#include "coderunner/common/metrics.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/images.h"
#include "coderunner/engine/system.h"
#include "coderunner/intent/agent_catalog.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/sandboxes/sandbox_files.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "coderunner/sandboxes/sandbox_processes.h"
#include "coderunner/store/job_store.h"
#include "coderunner/store/node_registry.h"
#include "coderunner/store/sandbox_owners.h"
#include "coderunner/volumes/volume_service.h"
#include "coderunner/wire/execute_request.h"

namespace coderunner::api {

// The code of the 503 that /v1/sandboxes and /v1/volumes answer while
// code_runner.runtime is native (they need a container engine).
inline constexpr char kReasonNativeRuntime[] = "unavailable_in_native_runtime";

// What the server needs; all owned by the caller and outliving the Server.
struct ServerDeps {
  const config::Config* config;
  engine::SystemClient* system;
  engine::ImageClient* images;
  jobs::JobService* jobs;
  MetricsRegistry* metrics;
  const auth::Authenticator* authenticator;
  volumes::VolumeService* volumes;  // The /v1/volumes routes; nullptr: none.
  // Execute mode's agent profiles; nullptr when no LLM is configured
  // (POST /v1/intents then answers 503).
  intent::AgentCatalog* agents = nullptr;
  // The /v1/sandboxes routes; nullptr: none.
  sandboxes::SandboxManager* sandboxes = nullptr;
  // The job store /readyz pings before the engine; nullptr: not checked.
  store::JobStore* store = nullptr;
  // The fleet's node registry GET /v1/nodes lists (nodes_route.h); nullptr:
  // that route answers 503.
  store::NodeRegistry* nodes = nullptr;
  // The tiers' requests_per_minute buckets (a fleet's shared ones,
  // store::SharedRateLimiter); nullptr: the Server's own LocalRateLimiter.
  auth::RateLimiter* rate_limiter = nullptr;
  // Where each sandbox lives (the job store's SandboxOwners). With
  // store.kind postgres and `nodes`, a request for a sandbox or an artifact
  // held by another node is forwarded there (or answered 410 when that node
  // is gone); nullptr: every request is answered here.
  store::SandboxOwners* sandbox_owners = nullptr;
  // With `sandboxes` and e2b.enabled: the /e2b routes (e2b_routes.h), which
  // run processes and file calls in sandboxes through these.
  sandboxes::SandboxProcesses* sandbox_processes = nullptr;
  sandboxes::SandboxFiles* sandbox_files = nullptr;
};

// Routes (plus those of jobs_routes.h, volumes_routes.h, intents_routes.h
// and sandboxes_routes.h):
//   GET  /v1/languages   configured languages: aliases, image digests,
//                        versions and preinstalled packages (language_entry.h)
//   GET  /v1/info        auth mode, LLM configured, runtime, optional
//                        routes and job limits (info_route.h; no key)
//   GET  /healthz        the process is up
//   GET  /readyz         the job store and the engine answer and every image
//                        is present (in code_runner.runtime: native only the
//                        store and the engine, and the body carries
//                        "runtime": "native" and a "warning")
// (/v1/languages and /readyz need no key and answer from the last engine
// check within server.probe_cache_ms, or 503 when the engine or the store
// does not answer within 5 s; see probe_cache.h)
//   GET  /openapi.json   the OpenAPI 3 document of every route (openapi.h)
//   GET  /metrics        Prometheus text (no key)
//   GET  /v1/nodes       the fleet's nodes, for an admin key (nodes_route.h)
// the Piston-compatible /api/v2 routes (piston_routes.h), and the MCP
// server at /mcp (mcp/mcp_routes.h, docs/mcp.md).
// In native mode /v1/sandboxes and /v1/volumes answer 503
// kReasonNativeRuntime (native_routes.h) whatever deps.sandboxes and
// deps.volumes are.
// Every error answer is {"error":{"code","message"}}.
//
// Thread-safe: handlers run on a pool of config.server.threads threads.
class AuthAdapter;
class OwnerForwarder;
namespace mcp {
class McpServer;
class McpSessions;
}  // namespace mcp

class Server {
 public:
  explicit Server(ServerDeps deps);
  ~Server();

  // Binds config.server.listen (port 0 picks a free port). Unavailable if
  // the address cannot be bound.
  Status Bind();
  // The bound port, after Bind.
  int port() const { return port_; }
  // Serves until Stop(). Returns when stopped.
  Status Serve();
  // Stops serving; safe from any thread (including a signal-watching one).
  void Stop();

  // Readiness: OK, or the first problem: the job store not answering its
  // ping (Unavailable "store_unavailable"), a directory the jobs write to
  // with less than jobs.disk_reserve_bytes free (ResourceExhausted
  // "disk_full": 507), the engine, then every missing image (not in native
  // mode) and how to get it. Asks the store and the engine every time (GET
  // /readyz answers from a short cache of it, computed off the request
  // path); blocks up to the store's connect timeout while it is down.
  Status CheckReady();

  // Every route registered (method, httplib pattern, OpenAPI path), fixed
  // at construction; the OpenAPI document must list exactly these.
  const std::vector<Route>& routes() const { return routes_.routes(); }

 private:
  // code_runner.runtime is native.
  bool native() const { return deps_.config->code_runner.runtime == config::RunMode::kNative; }
  void Routes();
  // Whether /e2b is served: sandboxes run here, e2b.enabled, and the
  // processes and files E2B's calls reach were given.
  bool E2bServed() const;
  // Builds the MCP server (mcp_server_, mcp_sessions_) and registers /mcp.
  void McpRoutes(const AuthAdapter& auth);
  // httplib's error, exception, post-routing (response_headers.h) and
  // access-log handlers.
  void Hooks();
  // The GET /readyz answer (CheckReady).
  ProbeAnswer ReadyAnswer();
  // The GET /v1/languages answer, asking the engine for each image
  // (LanguageEntry per language). Unavailable engine: its error answer.
  ProbeAnswer LanguagesAnswer();
  // The GET /metrics answer (Prometheus text), with the queue depth and
  // webhook counts read now.
  std::string MetricsText();

  ServerDeps deps_;
  // Outlives http_ (its task queue's threads report to it).
  std::unique_ptr<ConnectionGuard> connections_;
  // Fleet mode's forwarder (nullptr otherwise); outlives http_'s handlers.
  std::unique_ptr<OwnerForwarder> forwarder_;
  // The MCP server at /mcp and its sessions (nullptr with mcp.enabled
  // false); outlive http_'s handlers.
  std::unique_ptr<mcp::McpSessions> mcp_sessions_;
  std::unique_ptr<mcp::McpServer> mcp_server_;
  std::unique_ptr<httplib::Server> http_;
  RouteTable routes_;  // Registers on *http_; declared after it.
  // Used when deps.rate_limiter is null.
  auth::LocalRateLimiter local_rate_limiter_;
  auth::LongRequestLimiter long_requests_;
  // Last: their threads call the members above.
  ProbeCache readyz_cache_;
  ProbeCache languages_cache_;
  int port_ = 0;
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_SERVER_H_
