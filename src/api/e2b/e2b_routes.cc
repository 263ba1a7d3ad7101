#include "e2b/e2b_routes.h"

#include "e2b/e2b_contexts.h"

namespace coderunner::api {

void RegisterE2bRoutes(RouteTable& http, const E2bDeps& deps, const AuthAdapter& auth) {
  e2b::RegisterControlRoutes(http, deps, auth);
  e2b::RegisterProcessRoutes(http, deps, auth);
  e2b::RegisterFilesRoutes(http, deps);
  e2b::RegisterCodeRoutes(http, deps);
  e2b::RegisterContextRoutes(http, deps);
}

}  // namespace coderunner::api
