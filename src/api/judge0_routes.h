// Judge0 CE's submissions API under /judge0 (judge0_api.h translates;
// docs/judge0.md). A harness written for Judge0 points its base URL at
// http://<host>/judge0 and sends its key as X-Auth-Token.
#ifndef CODERUNNER_API_JUDGE0_ROUTES_H_
#define CODERUNNER_API_JUDGE0_ROUTES_H_

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/jobs/job_service.h"

namespace coderunner::api {

// Registers, each wrapped by `auth` with Judge0's error shape ({"error"},
// and {"<field>": ["<why>"]} with 422 for a submission Judge0 would refuse):
//   GET  /judge0/languages, /judge0/languages/{id}, /judge0/statuses
//   POST /judge0/submissions?base64_encoded=&wait=&fields=   201: the token,
//        or with wait=true the finished submission (as POST /v1/execute)
//   GET  /judge0/submissions/{token}?base64_encoded=&fields=
//   POST /judge0/submissions/batch {"submissions": [...]}  201: a token or
//        the entry's errors, each in order
//   GET  /judge0/submissions/batch?tokens=a,b&base64_encoded=&fields=
// A submission is a /v1 job of the caller's tenant (its token the job id):
// the same parsing, tier bounds, queue and run. `service` must outlive
// `http`.
void RegisterJudge0Routes(RouteTable& http, jobs::JobService& service, const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_JUDGE0_ROUTES_H_
