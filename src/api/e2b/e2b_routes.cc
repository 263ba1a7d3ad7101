#include "e2b/e2b_routes.h"

#include "e2b/e2b_contexts.h"
#include "e2b/e2b_relay.h"

namespace coderunner::api {

void RegisterE2bRoutes(RouteTable& http, const E2bDeps& deps, const AuthAdapter& auth) {
  e2b::RegisterControlRoutes(http, deps, auth);
  e2b::EnvdRoutes envd(http, deps);
  e2b::RegisterProcessRoutes(envd, deps, auth);
  e2b::RegisterFilesRoutes(envd, deps);
  e2b::RegisterCodeRoutes(envd, deps);
  e2b::RegisterContextRoutes(envd, deps);
}

}  // namespace coderunner::api
