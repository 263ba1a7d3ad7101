#include "intents_routes.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "coderunner/intent/intent_record.h"
#include "coderunner/intent/intent_request.h"
#include "coderunner/wire/job_json.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

json AgentJson(const intent::AgentProfile& a) {
  return {{"name", a.name},
          {"language", a.language},
          {"description", a.description},
          {"keywords", a.keywords},
          {"system_prompt", a.system_prompt},
          {"conventions", a.conventions},
          {"builtin", a.builtin},
          {"created_at", wire::Rfc3339(a.created_at_ms)}};
}

}  // namespace

void RegisterIntentRoutes(RouteTable& http, jobs::JobService& service, intent::AgentCatalog* agents,
                          const AuthAdapter& auth) {
  http.Post("/v1/intents",
            auth.Wrap([&service, agents](const auth::Principal& p,
                                         const httplib::Request& req) -> StatusOr<Answer> {
              if (agents == nullptr || !service.intents_enabled()) {
                return UnavailableError(
                    "Execute mode needs an OpenAI-compatible model: set llm.base_url "
                    "and llm.model in the config (see docs/execute-mode.md)",
                    "llm_not_configured");
              }
              const config::Config& config = service.config();
              CR_ASSIGN_OR_RETURN(intent::IntentRequest parsed,
                                  intent::ParseIntentRequest(req.body, config, p.tier));
              if (!parsed.volume_id.empty()) {
                CR_RETURN_IF_ERROR(service.CheckVolume(p.tenant, p.tier, parsed.volume_id));
              }
              CR_ASSIGN_OR_RETURN(store::JobRecord rec,
                                  intent::IntentRecord(p.tenant, p.tier, parsed, config));
              int64_t output_cap = config.max_limits.output_bytes;
              CR_ASSIGN_OR_RETURN(jobs::Accepted accepted,
                                  service.SubmitRecord(std::move(rec), p.tier, output_cap));
              return Answer::Json(202, {{"id", accepted.record.id},
                                        {"status", store::JobStatusName(accepted.record.status)},
                                        {"kind", "intent"},
                                        {"language", accepted.record.language}});
            }));

  http.Get("/v1/agents", auth.Wrap([agents](const auth::Principal& p,
                                            const httplib::Request&) -> StatusOr<Answer> {
    json list = json::array();
    if (agents != nullptr) {
      for (const auto& a : agents->List(p.tenant)) list.push_back(AgentJson(a));
    }
    return Answer::Json(200, {{"agents", list}});
  }));
}

}  // namespace coderunner::api
