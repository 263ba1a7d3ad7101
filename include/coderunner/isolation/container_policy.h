// ContainerPolicy: the non-negotiable security policy of every job container.
#ifndef CODERUNNER_ISOLATION_CONTAINER_POLICY_H_
#define CODERUNNER_ISOLATION_CONTAINER_POLICY_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/isolation/mechanism.h"

namespace coderunner::isolation {

// Labels every coderunner container carries, for cleanup and reconciliation.
inline constexpr const char* kLabelManaged = "io.coderunner.managed";    // "true"
inline constexpr const char* kLabelInstance = "io.coderunner.instance";  // service instance
inline constexpr const char* kLabelJob = "io.coderunner.job";            // job id
inline constexpr const char* kLabelLanguage = "io.coderunner.language";
// On warm-pool containers only: the owning pool's token (see WarmPool).
inline constexpr const char* kLabelPool = "io.coderunner.pool";
// On stateful-sandbox containers only: the sandbox id ("sbx-..."). Such a
// container outlives jobs and service restarts; only the sandbox manager
// removes it.
inline constexpr const char* kLabelSandbox = "io.coderunner.sandbox";
inline constexpr const char* kLabelTenant = "io.coderunner.tenant";

// Builds create bodies from all mechanisms. Nothing in a JobSpec can switch a
// mechanism off: a request only chooses values (limits) within the maxima
// that were validated before the JobSpec was built. Immutable after
// construction; thread-safe.
class ContainerPolicy {
 public:
  ContainerPolicy(PolicySettings settings, std::string instance);

  // The POST /containers/create body for `ctx`. HostConfig.Runtime is
  // RuntimeOf(ctx.job), absent when that is "" (the engine's default).
  nlohmann::json BuildCreateBody(const ContainerContext& ctx) const;

  // The OCI runtime `job` runs under: job.runtime, else the service-wide
  // settings().runtime; "" means the engine's default. The reference lives
  // as long as `job` and this policy.
  const std::string& RuntimeOf(const JobSpec& job) const;

  // Runs every mechanism's Verify against an inspect body; the first
  // mismatch is returned.
  Status Verify(const ContainerContext& ctx, const nlohmann::json& inspect) const;

  const PolicySettings& settings() const { return settings_; }
  const std::string& instance() const { return instance_; }

 private:
  PolicySettings settings_;
  std::string instance_;
  std::vector<std::unique_ptr<Mechanism>> mechanisms_;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_CONTAINER_POLICY_H_
