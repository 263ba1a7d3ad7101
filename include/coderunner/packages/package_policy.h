// PackagePolicy: where a tenant's packages come from and which it may have,
// from packages.* and its tier (docs/packages.md).
#ifndef CODERUNNER_PACKAGES_PACKAGE_POLICY_H_
#define CODERUNNER_PACKAGES_PACKAGE_POLICY_H_

#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/packages/requirement.h"

namespace coderunner::packages {

// Error codes of packages a job may not have.
inline constexpr char kReasonPackagesUnavailable[] = "packages_unavailable";
inline constexpr char kReasonPackageRefused[] = "package_refused";

struct PackagePolicy {
  std::string python_index_url;    // "" = no Python packages.
  std::vector<std::string> allow;  // Normalized; empty = every name not denied.
  std::vector<std::string> deny;   // Normalized.
};

// The tier's index if it names one, else packages.python_index_url; the
// tier's allowlist if it has one, else packages.allow; packages.deny and the
// tier's deny together. `tier` may be null. Pure.
PackagePolicy PolicyFor(const config::Config& config, const config::TierConfig* tier);

// OK when `normalized_name` may be installed: FailedPrecondition
// "package_refused" naming it and the list that refuses it otherwise. Pure.
Status CheckAllowed(const PackagePolicy& policy, std::string_view normalized_name);

// What a request's "packages.python" list must pass before the job is
// accepted: a configured index (FailedPrecondition "packages_unavailable"),
// at most packages.max_requirements entries (InvalidArgument
// "invalid_request"), each a requirement (ParseRequirement) the policy
// allows (CheckAllowed), no project twice ("invalid_package"). Returns them
// parsed, in request order. Pure.
StatusOr<std::vector<Requirement>> CheckPythonRequest(const std::vector<std::string>& texts,
                                                      const config::Config& config,
                                                      const config::TierConfig* tier);

}  // namespace coderunner::packages

#endif  // CODERUNNER_PACKAGES_PACKAGE_POLICY_H_
