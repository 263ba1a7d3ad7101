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

// Where one ecosystem's packages come from, and which a tenant may have.
struct SourcePolicy {
  std::string index_url;           // The index or registry; "" = none.
  std::vector<std::string> allow;  // Normalized; empty = every name not denied.
  std::vector<std::string> deny;   // Normalized.
};

struct PackagePolicy {
  SourcePolicy python;
  SourcePolicy npm;
  const SourcePolicy& Of(Ecosystem ecosystem) const {
    return ecosystem == Ecosystem::kNpm ? npm : python;
  }
};

// For each ecosystem: the tier's index if it names one, else packages.*'s;
// the tier's allowlist if it has one, else packages.*'s; packages.*'s deny
// and the tier's together. `tier` may be null. Pure.
PackagePolicy PolicyFor(const config::Config& config, const config::TierConfig* tier);

// OK when `normalized_name` may be installed: FailedPrecondition
// "package_refused" naming it and the list that refuses it otherwise. Pure.
Status CheckAllowed(const SourcePolicy& policy, std::string_view normalized_name);

// What a request's "packages.python" or "packages.npm" list must pass
// before the job is accepted: a configured index (FailedPrecondition
// "packages_unavailable"), at most packages.max_requirements entries
// (InvalidArgument "invalid_request"), each a requirement
// (ParseRequirementOf) the policy allows (CheckAllowed), no package twice
// ("invalid_package"). Returns them parsed, in request order. Pure.
StatusOr<std::vector<Requirement>> CheckPackageRequest(Ecosystem ecosystem,
                                                       const std::vector<std::string>& texts,
                                                       const config::Config& config,
                                                       const config::TierConfig* tier);

}  // namespace coderunner::packages

#endif  // CODERUNNER_PACKAGES_PACKAGE_POLICY_H_
