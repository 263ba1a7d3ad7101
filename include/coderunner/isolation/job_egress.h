// The egress proxy of a job or sandbox with "network": "allowlist", opened
// in the network namespace of its running container (egress_proxy.h).
#ifndef CODERUNNER_ISOLATION_JOB_EGRESS_H_
#define CODERUNNER_ISOLATION_JOB_EGRESS_H_

#include <memory>

#include "coderunner/common/status.h"
#include "coderunner/egress/egress_policy.h"
#include "coderunner/egress/egress_proxy.h"
#include "coderunner/engine/containers.h"

namespace coderunner::isolation {

// Listens on 127.0.0.1:egress::kEgressProxyPort in the network namespace
// of the container `state` describes (its State.Pid's), which must be
// running; coderunner-init waits for that port before it starts the job.
// Internal "egress_unavailable" otherwise.
StatusOr<std::unique_ptr<egress::EgressProxy>> OpenEgressProxy(const engine::ContainerState& state,
                                                               const egress::EgressPolicy& policy);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_JOB_EGRESS_H_
