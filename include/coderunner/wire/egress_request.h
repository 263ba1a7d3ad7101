// "network": "allowlist" of a request, turned into the job's egress policy
// (coderunner/egress/egress_policy.h) from its tier's allowlist and the
// service's egress.* bounds.
#ifndef CODERUNNER_WIRE_EGRESS_REQUEST_H_
#define CODERUNNER_WIRE_EGRESS_REQUEST_H_

#include <optional>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/egress/egress_policy.h"

namespace coderunner::wire {

// The policy of a job that asked for the allowlist (`asked`), else none.
// FailedPrecondition "egress_not_allowed" when its tier lists no host (or
// it has no tier); "egress_unsupported" when it would run where the
// service cannot listen in its network namespace: under gVisor (`runtime`,
// "" meaning sandbox.runtime) or as a host process (code_runner.runtime:
// native). Pure; thread-safe.
StatusOr<std::optional<egress::EgressPolicy>> EgressPolicyOf(bool asked,
                                                             const config::Config& config,
                                                             const config::TierConfig* tier,
                                                             const std::string& runtime);

}  // namespace coderunner::wire

#endif  // CODERUNNER_WIRE_EGRESS_REQUEST_H_
