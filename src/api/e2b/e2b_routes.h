// What the E2B SDKs (e2b, @e2b/code-interpreter) speak, under /e2b
// (docs/e2b.md). Their control plane (sandboxes: create, connect, list,
// info, timeout, kill) takes the tenant's API key in X-API-Key; their calls
// into a sandbox (processes and files, the Connect protocol and /files)
// name it in E2b-Sandbox-Id and prove the right to it with the access
// token its creation handed out (X-Access-Token). Private to src/api.
#ifndef CODERUNNER_API_E2B_E2B_ROUTES_H_
#define CODERUNNER_API_E2B_E2B_ROUTES_H_

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/auth/authenticator.h"
#include "coderunner/auth/rate_limiter.h"
#include "coderunner/common/metrics.h"
#include "coderunner/config/config.h"
#include "coderunner/sandboxes/sandbox_files.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "coderunner/sandboxes/sandbox_processes.h"

namespace coderunner::api {

class OwnerForwarder;

// The reasons the /e2b routes' own refusals carry.
inline constexpr char kReasonE2bUnsupported[] = "e2b_unsupported";  // 400/501.

struct E2bDeps {
  const config::Config* config;
  sandboxes::SandboxManager* sandboxes;
  sandboxes::SandboxProcesses* processes;
  sandboxes::SandboxFiles* files;
  auth::RateLimiter* limiter;
  MetricsRegistry* metrics;
  // Fleet mode: sends a request on a sandbox another node holds to that
  // node (e2b_relay.h); null on one node.
  OwnerForwarder* forwarder = nullptr;
};

// Registers every /e2b route; `auth` checks the control plane's keys.
// Everything in `deps` outlives `http`.
void RegisterE2bRoutes(RouteTable& http, const E2bDeps& deps, const AuthAdapter& auth);

namespace e2b {
class EnvdRoutes;  // e2b_relay.h.
// The control plane's routes (e2b_control_routes.cc).
void RegisterControlRoutes(RouteTable& http, const E2bDeps& deps, const AuthAdapter& auth);
// process.Process (e2b_process_routes.cc).
void RegisterProcessRoutes(EnvdRoutes& http, const E2bDeps& deps, const AuthAdapter& auth);
// filesystem.Filesystem and /files (e2b_files_routes.cc).
void RegisterFilesRoutes(EnvdRoutes& http, const E2bDeps& deps);
// The code interpreter's /execute (e2b_code_routes.cc).
void RegisterCodeRoutes(EnvdRoutes& http, const E2bDeps& deps);
}  // namespace e2b

}  // namespace coderunner::api

#endif  // CODERUNNER_API_E2B_E2B_ROUTES_H_
