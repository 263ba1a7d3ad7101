#include "coderunner/isolation/job_egress.h"

#include <string>

namespace coderunner::isolation {

StatusOr<std::unique_ptr<egress::EgressProxy>> OpenEgressProxy(const engine::ContainerState& state,
                                                               const egress::EgressPolicy& policy) {
  const int64_t pid = state.raw.value(nlohmann::json::json_pointer("/State/Pid"), int64_t{0});
  if (!state.running || pid <= 0) {
    return InternalError("egress proxy: container " + state.id + " is not running",
                         "egress_unavailable");
  }
  return egress::EgressProxy::Open("/proc/" + std::to_string(pid) + "/ns/net",
                                   egress::kEgressProxyPort, policy);
}

}  // namespace coderunner::isolation
