// The /v1/sandboxes routes: stateful sandboxes.
#ifndef CODERUNNER_API_SANDBOXES_ROUTES_H_
#define CODERUNNER_API_SANDBOXES_ROUTES_H_

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/config/config.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "owner_forwarder.h"

namespace coderunner::api {

// Registers on `http`:
//   POST   /v1/sandboxes                      {"language"?,"ttl_s"?,"limits"?,"volume_id"?}
//   GET    /v1/sandboxes?state=&language=     {"sandboxes":[...]}
//   GET    /v1/sandboxes/{id}                 the sandbox (config, state, expiry, use)
//   POST   /v1/sandboxes/{id}/execute         {"code","files"?,"timeout_ms"?} -> the call
//   GET    /v1/sandboxes/{id}/files           {"files":[{path,size,sha256}]}
//   GET    /v1/sandboxes/{id}/files/{path}    the file's bytes
//   DELETE /v1/sandboxes/{id}                 {"id","deleted":true}
// Authenticated and tenant-scoped (another tenant's sandbox is 404). An
// execute holds one of the tenant's long-request slots while it runs (429
// too_many_long_requests beyond). Each handler is wrapped by `auth`.
// `manager` and `config` must outlive `http`.
//
// Fleet mode (`forwarder` not null, must outlive `http`): a create records
// this node as the sandbox's owner (and a delete forgets it); a request on
// /v1/sandboxes/{id}... for a sandbox not held here is forwarded to the
// node that holds it, or answered 410 "state_lost" when that node is gone
// (OwnerForwarder::ForSandbox; a DELETE then also forgets the placement).
// The list stays this node's own sandboxes.
void RegisterSandboxRoutes(RouteTable& http, sandboxes::SandboxManager& manager,
                           const config::Config& config, const AuthAdapter& auth,
                           OwnerForwarder* forwarder = nullptr);

// Creates `create` for `p` (SandboxManager::Create); with a forwarder,
// records this node as the sandbox's owner, and a sandbox that cannot be
// recorded is deleted again (no other node could ever reach it). Shared by
// /v1's create and E2B's.
StatusOr<sandboxes::SandboxRecord> CreatePlaced(sandboxes::SandboxManager& manager,
                                                OwnerForwarder* forwarder, const auth::Principal& p,
                                                sandboxes::SandboxCreateSpec create);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_SANDBOXES_ROUTES_H_
