// What the HTTP edge answers in code_runner.runtime: native for the routes
// that need a container engine.
#ifndef CODERUNNER_API_NATIVE_ROUTES_H_
#define CODERUNNER_API_NATIVE_ROUTES_H_

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"

namespace coderunner::api {

// The loud warning /readyz carries (field "warning") in native mode.
inline constexpr char kNativeWarning[] =
    "code_runner.runtime is native (security.mode: permissive): jobs run as host processes "
    "WITHOUT a container; use only on a trusted, single-user host";

// Registers GET, POST and DELETE on /v1/sandboxes, /v1/volumes and every
// path below them, each answering 503 with code kReasonNativeRuntime
// (server.h) after authentication (wrapped by `auth`): stateful sandboxes
// and persistent volumes need containers. Register instead of their own
// routes.
void RegisterNativeRefusals(RouteTable& http, const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_NATIVE_ROUTES_H_
