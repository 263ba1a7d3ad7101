#include "piston_routes.h"

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "authorize.h"
#include "coderunner/wire/job_submission.h"
#include "http_reply.h"
#include "http_status.h"
#include "piston_request.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

void ReplyPistonError(httplib::Response& res, const Status& status) {
  if (status.code() == StatusCode::kResourceExhausted) res.set_header("Retry-After", "1");
  Reply(res, HttpStatusFor(status), PistonErrorJson(status));
}

// Authorize answers in our error shape; Piston clients read "message", so
// the same answer gets it added.
void AddPistonMessage(httplib::Response& res) {
  json body = json::parse(res.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("error") || !body["error"].is_object()) return;
  body["message"] = body["error"].value("message", "");
  Reply(res, res.status, body);
}

}  // namespace

void RegisterPistonRoutes(RouteTable& http, jobs::JobService& service, MetricsRegistry& metrics,
                          const auth::Authenticator& authenticator, auth::RateLimiter& limiter,
                          auth::LongRequestLimiter& long_requests) {
  const config::Config& config = *service.context().config;
  auto who = [&authenticator, &limiter, &metrics](const httplib::Request& req,
                                                  httplib::Response& res) {
    auto p = Authorize(req, res, authenticator, limiter, metrics);
    if (!p) AddPistonMessage(res);
    return p;
  };

  for (const char* prefix : {"/api/v2", "/api/v2/piston"}) {
    http.Get(std::string(prefix) + "/runtimes",
             [&config, who](const httplib::Request& req, httplib::Response& res) {
               if (!who(req, res)) return;
               Reply(res, 200, PistonRuntimesJson(config));
             });

    http.Get(std::string(prefix) + "/packages",
             [&config, who](const httplib::Request& req, httplib::Response& res) {
               if (!who(req, res)) return;
               Reply(res, 200, PistonPackagesJson(config));
             });
    // Piston deployments install runtimes with POST /packages at start. Here
    // every runtime is an image built before the service starts: installing
    // one that exists is done already (Piston's answer, so those scripts go
    // on), and none can be removed while the service runs.
    http.Post(std::string(prefix) + "/packages",
              [&config, who](const httplib::Request& req, httplib::Response& res) {
                if (!who(req, res)) return;
                auto rt = ResolvePistonPackage(req.body, config);
                if (!rt.ok()) return ReplyPistonError(res, rt.status());
                Reply(res, 200, json{{"language", rt->language}, {"version", rt->version}});
              });
    http.Delete(std::string(prefix) + "/packages", [&config, who](const httplib::Request& req,
                                                                  httplib::Response& res) {
      if (!who(req, res)) return;
      auto rt = ResolvePistonPackage(req.body, config);
      if (!rt.ok()) return ReplyPistonError(res, rt.status());
      ReplyPistonError(res, FailedPreconditionError(
                                rt->language + "-" + rt->version +
                                    " is an image in the service's configuration; remove it "
                                    "from languages: and restart the service to uninstall it",
                                "package_fixed"));
    });

    // Piston clients (the npm piston-client among them) send JSON without a
    // JSON Content-Type; the body is read as JSON whatever the header says.
    http.Post(
        std::string(prefix) + "/execute", [&service, &config, &long_requests, &metrics, who](
                                              const httplib::Request& req, httplib::Response& res) {
          auto p = who(req, res);
          if (!p) return;
          auto call = TranslatePistonRequest(req.body, config, p->tier);
          if (!call.ok()) return ReplyPistonError(res, call.status());
          auto slot = HoldLongRequest(res, *p, long_requests, config, metrics);
          if (!slot) return AddPistonMessage(res);
          auto submission =
              wire::JobSubmissionFromJson(std::move(call->execute), service.submission_rules());
          if (!submission.ok()) return ReplyPistonError(res, submission.status());
          auto result = service.Execute(p->tenant, std::move(*submission), p->tier);
          if (!result.ok()) return ReplyPistonError(res, result.status());
          json parsed = json::parse(result->result_json, nullptr, /*allow_exceptions=*/false);
          auto answer = PistonResponseJson(*call, parsed);
          if (!answer.ok()) return ReplyPistonError(res, answer.status());
          Reply(res, 200, *answer);
        });
  }
}

}  // namespace coderunner::api
