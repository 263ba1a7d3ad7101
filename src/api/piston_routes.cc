#include "piston_routes.h"

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "coderunner/wire/job_submission.h"
#include "http_reply.h"
#include "http_status.h"
#include "piston_request.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// Piston clients read "message": every error of these routes (a refused
// key or rate included) has it beside our {"error"}.
void ReplyPistonError(httplib::Response& res, const Status& status) {
  SetRetryAfter(res, status);
  Reply(res, HttpStatusFor(status), PistonErrorJson(status));
}

// GET/POST/DELETE <prefix>/packages and GET <prefix>/runtimes.
void RegisterPistonPackageRoutes(RouteTable& http, const std::string& prefix,
                                 const config::Config& config, const AuthAdapter& auth) {
  http.Get(prefix + "/runtimes",
           auth.Wrap([&config](const auth::Principal&, const httplib::Request&) {
             return StatusOr<Answer>(Answer::Json(200, PistonRuntimesJson(config)));
           }));

  http.Get(prefix + "/packages",
           auth.Wrap([&config](const auth::Principal&, const httplib::Request&) {
             return StatusOr<Answer>(Answer::Json(200, PistonPackagesJson(config)));
           }));
  // Piston deployments install runtimes with POST /packages at start. Here
  // every runtime is an image built before the service starts: installing
  // one that exists is done already (Piston's answer, so those scripts go
  // on), and none can be removed while the service runs.
  http.Post(
      prefix + "/packages",
      auth.Wrap([&config](const auth::Principal&, const httplib::Request& req) -> StatusOr<Answer> {
        auto rt = ResolvePistonPackage(req.body, config);
        if (!rt.ok()) return rt.status();
        return Answer::Json(200, json{{"language", rt->language}, {"version", rt->version}});
      }));
  http.Delete(
      prefix + "/packages",
      auth.Wrap([&config](const auth::Principal&, const httplib::Request& req) -> StatusOr<Answer> {
        auto rt = ResolvePistonPackage(req.body, config);
        if (!rt.ok()) return rt.status();
        return FailedPreconditionError(
            rt->language + "-" + rt->version +
                " is an image in the service's configuration; remove it "
                "from languages: and restart the service to uninstall it",
            "package_fixed");
      }));
}

}  // namespace

void RegisterPistonRoutes(RouteTable& http, jobs::JobService& service,
                          const AuthAdapter& our_auth) {
  const config::Config& config = service.config();
  AuthAdapter auth = our_auth.WithErrors(ReplyPistonError);

  for (const char* prefix : {"/api/v2", "/api/v2/piston"}) {
    RegisterPistonPackageRoutes(http, prefix, config, auth);

    // Piston clients (the npm piston-client among them) send JSON without a
    // JSON Content-Type; the body is read as JSON whatever the header says.
    http.Post(std::string(prefix) + "/execute",
              auth.Wrap([&service, &config, auth](const auth::Principal& p,
                                                  const httplib::Request& req) -> StatusOr<Answer> {
                CR_ASSIGN_OR_RETURN(auto call, TranslatePistonRequest(req.body, config, p.tier));
                CR_ASSIGN_OR_RETURN(auto slot, auth.HoldLongRequest(p));
                CR_ASSIGN_OR_RETURN(auto submission,
                                    wire::JobSubmissionFromJson(std::move(call.execute),
                                                                service.submission_rules()));
                CR_ASSIGN_OR_RETURN(auto result,
                                    service.Execute(p.tenant, std::move(submission), p.tier));
                json parsed = json::parse(result.result_json, nullptr, /*allow_exceptions=*/false);
                CR_ASSIGN_OR_RETURN(json answer, PistonResponseJson(call, parsed));
                return Answer::Json(200, answer);
              }));
  }
}

}  // namespace coderunner::api
