#include "coderunner/wire/egress_request.h"

namespace coderunner::wire {

StatusOr<std::optional<egress::EgressPolicy>> EgressPolicyOf(bool asked,
                                                             const config::Config& config,
                                                             const config::TierConfig* tier,
                                                             const std::string& runtime) {
  if (!asked) return std::optional<egress::EgressPolicy>();
  if (tier == nullptr || tier->egress_allow.empty()) {
    return FailedPreconditionError("\"network\": \"allowlist\": tier " +
                                       (tier != nullptr ? tier->name : std::string("-")) +
                                       " allows no host (tiers.<name>.egress_allow)",
                                   "egress_not_allowed");
  }
  const std::string& effective = runtime.empty() ? config.sandbox.runtime : runtime;
  if (effective == "runsc" || config.code_runner.runtime == config::RunMode::kNative) {
    return FailedPreconditionError(
        "\"network\": \"allowlist\" needs a job in a runc container: under gVisor, or as a host "
        "process, the service cannot listen inside the job's network namespace",
        "egress_unsupported");
  }
  egress::EgressPolicy policy;
  for (const auto& text : tier->egress_allow) {
    CR_ASSIGN_OR_RETURN(egress::EgressRule rule, egress::ParseEgressRule(text));
    policy.allow.push_back(std::move(rule));
  }
  for (const auto& text : tier->egress_private) {
    CR_ASSIGN_OR_RETURN(egress::AddressRange range, egress::ParseAddressRange(text));
    policy.private_ranges.push_back(range);
  }
  const config::EgressConfig& bounds = config.egress;
  policy.max_bytes = bounds.max_bytes;
  policy.max_connections = bounds.max_connections;
  policy.connect_timeout_ms = bounds.connect_timeout_ms;
  policy.idle_timeout_ms = bounds.idle_timeout_ms;
  policy.max_log_entries = bounds.max_log_entries;
  return std::optional<egress::EgressPolicy>(std::move(policy));
}

}  // namespace coderunner::wire
