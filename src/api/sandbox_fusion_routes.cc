#include "sandbox_fusion_routes.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "coderunner/wire/job_submission.h"
#include "http_reply.h"
#include "http_status.h"
#include "sandbox_fusion.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// FastAPI's shapes: {"detail": [...]} with 422 for a refused request, else
// {"detail": "<message>"}.
void ReplySandboxFusionError(httplib::Response& res, const Status& status) {
  SetRetryAfter(res, status);
  if (status.reason() == kReasonSandboxFusionInvalid) {
    Reply(res, 422, SandboxFusionInvalidJson(status));
    return;
  }
  Reply(res, HttpStatusFor(status), json{{"detail", status.message()}});
}

}  // namespace

void RegisterSandboxFusionRoutes(RouteTable& http, jobs::JobService& service,
                                 const AuthAdapter& our_auth) {
  AuthAdapter auth = our_auth.WithErrors(ReplySandboxFusionError);
  http.Post("/run_code", auth.WrapJson([&service, auth](const auth::Principal& p,
                                                        const httplib::Request&,
                                                        const json& body) -> StatusOr<Answer> {
    CR_ASSIGN_OR_RETURN(json job, SandboxFusionToJob(body, service.config()));
    CR_ASSIGN_OR_RETURN(auto submission,
                        wire::JobSubmissionFromJson(std::move(job), service.submission_rules()));
    CR_ASSIGN_OR_RETURN(auto slot, auth.HoldLongRequest(p));
    CR_ASSIGN_OR_RETURN(auto answer, service.Execute(p.tenant, std::move(submission), p.tier));
    json result = json::parse(answer.result_json, nullptr, /*allow_exceptions=*/false);
    return Answer::Json(200, SandboxFusionResponse(result.is_object() ? result : json::object()));
  }));
}

}  // namespace coderunner::api
