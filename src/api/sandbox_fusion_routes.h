// SandboxFusion's POST /run_code (sandbox_fusion.h translates;
// docs/sandbox-fusion.md), which RL frameworks call for code rewards.
#ifndef CODERUNNER_API_SANDBOX_FUSION_ROUTES_H_
#define CODERUNNER_API_SANDBOX_FUSION_ROUTES_H_

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/jobs/job_service.h"

namespace coderunner::api {

// Registers POST /run_code: the request runs as one /v1/execute job of the
// caller's tenant (the same parsing, tier bounds, queue and run, and one of
// its long-request slots while it runs), answered 200 in SandboxFusion's
// shape; a request its FastAPI would refuse is 422 {"detail": [...]}, any
// other error {"detail": "<message>"} at our status. `service` must
// outlive `http`.
void RegisterSandboxFusionRoutes(RouteTable& http, jobs::JobService& service,
                                 const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_SANDBOX_FUSION_ROUTES_H_
