#include "coderunner/isolation/container_policy.h"

namespace coderunner::isolation {

ContainerPolicy::ContainerPolicy(PolicySettings settings, std::string instance)
    : settings_(std::move(settings)), instance_(std::move(instance)) {
  mechanisms_.push_back(MakeNetworkIsolation());
  mechanisms_.push_back(MakeFilesystemIsolation());
  mechanisms_.push_back(MakeIdentityIsolation());
  mechanisms_.push_back(MakeResourceLimits());
  mechanisms_.push_back(MakeKernelIsolation());
  mechanisms_.push_back(MakeCleanProcess());
}

nlohmann::json ContainerPolicy::BuildCreateBody(const ContainerContext& ctx) const {
  nlohmann::json create = nlohmann::json::object();
  create["Image"] = ctx.job.language.image;
  create["Labels"] = {{kLabelManaged, "true"},
                      {kLabelInstance, instance_},
                      {kLabelJob, ctx.job.id},
                      {kLabelLanguage, ctx.job.language.name}};
  if (ctx.pooled) create["Labels"][kLabelPool] = ctx.pool_label;
  create["HostConfig"] = nlohmann::json::object();
  for (const auto& m : mechanisms_) m->Apply(settings_, ctx, create);
  // "runc" is sent as-is, never mapped to "": Docker lists runc among its
  // runtimes and accepts it by name; Podman 4.3 accepts any name here (and
  // ignores it: its engine-wide default runtime runs every container).
  const std::string& runtime = RuntimeOf(ctx.job);
  if (!runtime.empty()) create["HostConfig"]["Runtime"] = runtime;
  return create;
}

const std::string& ContainerPolicy::RuntimeOf(const JobSpec& job) const {
  return EffectiveRuntime(settings_, job);
}

Status ContainerPolicy::Verify(const ContainerContext& ctx, const nlohmann::json& inspect) const {
  for (const auto& m : mechanisms_) CR_RETURN_IF_ERROR(m->Verify(settings_, ctx, inspect));
  return OkStatus();
}

}  // namespace coderunner::isolation
