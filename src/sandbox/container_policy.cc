#include "coderunner/sandbox/container_policy.h"

namespace coderunner::sandbox {

ContainerPolicy::ContainerPolicy(PolicySettings settings, std::string instance)
    : settings_(std::move(settings)), instance_(std::move(instance)) {
  mechanisms_.push_back(MakeNetworkIsolation());
  mechanisms_.push_back(MakeFilesystemIsolation());
  mechanisms_.push_back(MakeIdentityIsolation());
  mechanisms_.push_back(MakeResourceLimits());
  mechanisms_.push_back(MakeCleanProcess());
}

nlohmann::json ContainerPolicy::BuildCreateBody(const ContainerContext& ctx) const {
  nlohmann::json create = nlohmann::json::object();
  create["Image"] = ctx.job.language.image;
  create["Labels"] = {{kLabelManaged, "true"},
                      {kLabelInstance, instance_},
                      {kLabelJob, ctx.job.id},
                      {kLabelLanguage, ctx.job.language.name}};
  create["HostConfig"] = nlohmann::json::object();
  for (const auto& m : mechanisms_) m->Apply(settings_, ctx, create);
  if (!settings_.runtime.empty()) create["HostConfig"]["Runtime"] = settings_.runtime;
  return create;
}

Status ContainerPolicy::Verify(const ContainerContext& ctx, const nlohmann::json& inspect) const {
  for (const auto& m : mechanisms_) CR_RETURN_IF_ERROR(m->Verify(settings_, ctx, inspect));
  return OkStatus();
}

}  // namespace coderunner::sandbox
