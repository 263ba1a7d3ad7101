#include "intents_routes.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "authorize.h"
#include "coderunner/common/ids.h"
#include "coderunner/common/sha256.h"
#include "coderunner/intent/intent_request.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/wire/execute_request.h"
#include "coderunner/wire/job_json.h"
#include "http_reply.h"

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

// The record of an accepted intent: a job of kind "intent" whose stored
// request is the normalized intent (see intent_request.h).
StatusOr<store::JobRecord> IntentRecord(const std::string& tenant, const config::TierConfig* tier,
                                        const intent::IntentRequest& req,
                                        const config::Config& config) {
  CR_ASSIGN_OR_RETURN(
      wire::ExecuteRequest probe,
      wire::ParseExecuteRequest(intent::AttemptBody(req, ""), wire::CapsFromConfig(config)));
  store::JobRecord rec;
  rec.id = NewId("job");
  CR_ASSIGN_OR_RETURN(isolation::JobSpec spec, wire::BuildJobSpec(probe, config, rec.id, tier));
  int64_t now = jobs::NowMs();
  rec.kind = "intent";
  rec.tenant = tenant;
  rec.language = req.language;
  rec.request_json = jobs::EncodeStoredRequest(intent::IntentRequestToJson(req), "", false,
                                               tier != nullptr ? tier->name : "");
  // The code is the model's and not known yet: code_sha256 names the
  // intent instead, inputs_sha256 the inputs.
  rec.code_sha256 = Sha256Hex(req.intent);
  rec.inputs_sha256 = Sha256Hex(req.inputs.dump());
  rec.image = spec.language.image;
  rec.limits_json = json{{"timeout_ms", spec.limits.timeout_ms},
                         {"cpu_ms", spec.limits.cpu_ms},
                         {"memory_bytes", spec.limits.memory_bytes},
                         {"pids", spec.limits.pids},
                         {"output_bytes", spec.limits.output_bytes},
                         {"tmp_bytes", spec.limits.tmp_bytes},
                         {"cpus", spec.limits.cpus}}
                        .dump();
  rec.callback_url = req.callback_url;
  rec.created_at_ms = now;
  rec.transitions.push_back({store::JobStatus::kQueued, now});
  return rec;
}

}  // namespace

void RegisterIntentRoutes(RouteTable& http, jobs::JobService& service, intent::AgentCatalog* agents,
                          MetricsRegistry& metrics, const auth::Authenticator& authenticator,
                          auth::RateLimiter& limiter) {
  auto who = [&authenticator, &limiter, &metrics](const httplib::Request& req,
                                                  httplib::Response& res) {
    return Authorize(req, res, authenticator, limiter, metrics);
  };

  http.Post("/v1/intents", [&service, agents, who](const httplib::Request& req,
                                                   httplib::Response& res) {
    auto p = who(req, res);
    if (!p) return;
    if (agents == nullptr || service.context().intents == nullptr) {
      return ReplyError(
          res, UnavailableError("Execute mode needs an OpenAI-compatible model: set llm.base_url "
                                "and llm.model in the config (see README, Execute mode)",
                                "llm_not_configured"));
    }
    const config::Config& config = *service.context().config;
    auto parsed = intent::ParseIntentRequest(req.body, config, p->tier);
    if (!parsed.ok()) return ReplyError(res, parsed.status());
    if (!parsed->volume_id.empty()) {
      auto* volumes = service.context().volumes;
      if (volumes == nullptr) {
        return ReplyError(
            res, FailedPreconditionError("persistent volumes are not available on this service",
                                         "volumes_unavailable"));
      }
      auto mount = volumes->Resolve(p->tenant, p->tier, parsed->volume_id);
      if (!mount.ok()) return ReplyError(res, mount.status());
    }
    auto rec = IntentRecord(p->tenant, p->tier, *parsed, config);
    if (!rec.ok()) return ReplyError(res, rec.status());
    int64_t output_cap = config.max_limits.output_bytes;
    auto accepted = service.SubmitRecord(std::move(*rec), p->tier, output_cap);
    if (!accepted.ok()) return ReplyError(res, accepted.status());
    Reply(res, 202,
          {{"id", accepted->record.id},
           {"status", store::JobStatusName(accepted->record.status)},
           {"kind", "intent"},
           {"language", accepted->record.language}});
  });

  http.Get("/v1/agents", [agents, who](const httplib::Request& req, httplib::Response& res) {
    auto p = who(req, res);
    if (!p) return;
    json list = json::array();
    if (agents != nullptr) {
      for (const auto& a : agents->List(p->tenant)) list.push_back(AgentJson(a));
    }
    Reply(res, 200, {{"agents", list}});
  });
}

}  // namespace coderunner::api
