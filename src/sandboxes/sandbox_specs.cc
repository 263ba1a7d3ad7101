// A sandbox's durable record made from a request, and its container's
// spec made from that record.
#include "coderunner/sandboxes/sandbox_manager.h"
#include "coderunner/wire/egress_request.h"

namespace coderunner::sandboxes {

StatusOr<isolation::JobSpec> SandboxManager::SpecOf(const SandboxRecord& record,
                                                    ReplDriver* driver) const {
  const isolation::LanguageSpec* language = config_.FindLanguage(record.language);
  if (language == nullptr) {
    return FailedPreconditionError("language " + record.language + " is no longer configured",
                                   "unknown_language");
  }
  CR_ASSIGN_OR_RETURN(*driver, DriverFor(*language));
  isolation::JobSpec spec;
  spec.id = record.id;
  spec.language = *language;
  spec.language.command = driver->command;
  spec.limits = record.limits;
  spec.runtime = record.runtime;
  spec.volume.id = record.volume_id;
  spec.home_bytes = record.home_bytes;
  // The tier's allowlist as it is now: a restart takes the configuration's
  // changes, and a sandbox whose tier lost its hosts does not start again.
  CR_ASSIGN_OR_RETURN(spec.egress,
                      wire::EgressPolicyOf(record.network_allowlist, config_,
                                           config_.FindTier(record.tier), record.runtime));
  return spec;
}

StatusOr<std::string> SandboxManager::ResolveVolume(const std::string& tenant,
                                                    const config::TierConfig* tier,
                                                    isolation::JobSpec* spec) {
  if (spec->volume.id.empty()) return std::string();
  if (volumes_ == nullptr) {
    return FailedPreconditionError("persistent volumes are not available", "volumes_unavailable");
  }
  CR_ASSIGN_OR_RETURN(spec->volume, volumes_->Resolve(tenant, tier, spec->volume.id));
  CR_ASSIGN_OR_RETURN(volumes::Volume v, volumes_->Get(tenant, spec->volume.id));
  return v.host_dir;
}

SandboxRecord SandboxManager::RecordOf(const auth::Principal& who, const SandboxCreateSpec& req,
                                       const isolation::JobSpec& spec, int64_t now_ms) {
  SandboxRecord rec;
  rec.id = spec.id;
  rec.tenant = who.tenant;
  rec.language = req.spec.language.name;
  rec.created_at_ms = rec.last_used_at_ms = now_ms;
  rec.ttl_s = req.ttl_s;
  rec.limits = spec.limits;
  rec.limits.timeout_ms = req.spec.limits.timeout_ms;
  rec.runtime = req.spec.runtime;
  rec.volume_id = spec.volume.id;
  rec.home_bytes = req.spec.home_bytes;
  rec.template_id = req.template_id;
  rec.metadata = req.metadata;
  rec.envs = req.envs;
  rec.access_token = req.access_token;
  rec.tier = who.tier != nullptr ? who.tier->name : "";
  rec.network_allowlist = req.spec.egress.has_value();
  return rec;
}

}  // namespace coderunner::sandboxes
