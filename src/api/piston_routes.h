// The Piston-compatible routes (engineer-man/piston API v2).
#ifndef CODERUNNER_API_PISTON_ROUTES_H_
#define CODERUNNER_API_PISTON_ROUTES_H_

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/jobs/job_service.h"

namespace coderunner::api {

// Registers on `http`, each also under /api/v2/piston/... (the path the
// public Piston instance uses, which some clients hard-code):
//   GET  /api/v2/runtimes  [{language, version, aliases, runtime?}]
//   POST /api/v2/execute   Piston's request -> {language, version, run:{...}}
// See piston_request.h for the translation. An execute runs as one
// /v1/execute job (same parsing, tier bounds, cache and run path). Both
// routes authenticate like /v1 (Authorization: Bearer <key>; nothing with
// auth.mode none) and count against the tier's rate. Every error answer is
// Piston's {"message"} with our {"error"} alongside, at the status of
// http_status.cc. An execute holds one of the tenant's long-request slots
// while it runs, like /v1/execute. Each handler is wrapped by `auth`, with
// Piston's error shape. `service` must outlive `http`.
void RegisterPistonRoutes(RouteTable& http, jobs::JobService& service, const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_PISTON_ROUTES_H_
