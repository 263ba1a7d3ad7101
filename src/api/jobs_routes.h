// The /v1/jobs routes and /v1/execute.
#ifndef CODERUNNER_API_JOBS_ROUTES_H_
#define CODERUNNER_API_JOBS_ROUTES_H_

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/jobs/job_service.h"
#include "owner_forwarder.h"

namespace coderunner::api {

// Registers on `http`:
//   POST   /v1/execute               submit + wait; the result (raw output)
//   POST   /v1/jobs                  202 {"id","status"}
//   POST   /v1/jobs/batch            202 {"jobs":[{"id","status"}|{"error":{...}}]}
//   GET    /v1/jobs?status=&limit=&cursor=
//   GET    /v1/jobs/{id}             the record
//   GET    /v1/jobs/{id}/wait?timeout_s=N   200 terminal / 202 not yet
//   DELETE /v1/jobs/{id}             cancel
//   POST   /v1/jobs/{id}/replay      202 {"id","status","replay_of"}
//   GET    /v1/jobs/{id}/events      Server-Sent Events
//   GET    /v1/jobs/{id}/artifacts/{path}  one artifact the result lists (bytes)
// Every /v1 job route authenticates (401 without a valid key, unless auth
// mode is none), is scoped to the caller's tenant (another tenant's job is
// 404), and counts against the tier's requests_per_minute (429 with
// Retry-After). /v1/execute, and /wait and /events of a job not finished
// yet, each hold one of the tenant's long-request slots while they last
// (429 too_many_long_requests beyond; see HoldLongRequest). Each handler
// is wrapped by `auth`. `service` must outlive `http`.
//
// Fleet mode (`forwarder` not null, must outlive `http`): an artifact of a
// job another node ran (the record's owner) is fetched from that node, or
// answered 410 "artifacts_gone" when it is gone (OwnerForwarder::ForArtifact).
void RegisterJobRoutes(RouteTable& http, jobs::JobService& service, const AuthAdapter& auth,
                       OwnerForwarder* forwarder = nullptr);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_JOBS_ROUTES_H_
