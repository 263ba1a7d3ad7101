// The Execute-mode routes: /v1/intents and /v1/agents.
#ifndef CODERUNNER_API_INTENTS_ROUTES_H_
#define CODERUNNER_API_INTENTS_ROUTES_H_

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/intent/agent_catalog.h"
#include "coderunner/jobs/job_service.h"

namespace coderunner::api {

// Registers on `http`:
//   POST /v1/intents   202 {"id","status":"queued","kind":"intent"}; the intent
//                      is a job: GET /v1/jobs/{id}, /wait, /events, DELETE
//   GET  /v1/agents    {"agents":[...]}: shared profiles and the caller's own
// When `agents` is nullptr (no LLM configured: llm.base_url is empty),
// POST /v1/intents answers 503 llm_not_configured and GET /v1/agents lists
// nothing; every other route works as before. Authentication, tenant scope
// and rate limits as for /v1/jobs (each handler wrapped by `auth`).
// `service` and `agents` must outlive `http`.
void RegisterIntentRoutes(RouteTable& http, jobs::JobService& service, intent::AgentCatalog* agents,
                          const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_INTENTS_ROUTES_H_
