#include "coderunner/packages/package_policy.h"

#include <algorithm>
#include <set>

namespace coderunner::packages {
namespace {

std::vector<std::string> Normalized(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(NormalizeProjectName(n));
  return out;
}

bool Contains(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

PackagePolicy PolicyFor(const config::Config& config, const config::TierConfig* tier) {
  const config::PackagesConfig& p = config.packages;
  PackagePolicy out;
  out.python_index_url = p.python_index_url;
  out.allow = Normalized(p.allow);
  out.deny = Normalized(p.deny);
  if (tier != nullptr) {
    if (!tier->python_index_url.empty()) out.python_index_url = tier->python_index_url;
    if (!tier->package_allow.empty()) out.allow = Normalized(tier->package_allow);
    for (auto& name : Normalized(tier->package_deny)) out.deny.push_back(std::move(name));
  }
  return out;
}

Status CheckAllowed(const PackagePolicy& policy, std::string_view normalized_name) {
  const std::string name(normalized_name);
  if (Contains(policy.deny, name)) {
    return FailedPreconditionError("package '" + name + "' is refused by this service's policy",
                                   kReasonPackageRefused);
  }
  if (!policy.allow.empty() && !Contains(policy.allow, name)) {
    return FailedPreconditionError(
        "package '" + name + "' is not on this service's list of allowed packages",
        kReasonPackageRefused);
  }
  return OkStatus();
}

StatusOr<std::vector<Requirement>> CheckPythonRequest(const std::vector<std::string>& texts,
                                                      const config::Config& config,
                                                      const config::TierConfig* tier) {
  std::vector<Requirement> out;
  if (texts.empty()) return out;
  PackagePolicy policy = PolicyFor(config, tier);
  if (policy.python_index_url.empty()) {
    return FailedPreconditionError("this service has no Python package index configured",
                                   kReasonPackagesUnavailable);
  }
  const int most = config.packages.max_requirements;
  if (static_cast<int64_t>(texts.size()) > most) {
    return InvalidArgumentError(
        "packages.python: at most " + std::to_string(most) + " requirements", "invalid_request");
  }
  std::set<std::string> seen;
  for (const auto& text : texts) {
    CR_ASSIGN_OR_RETURN(Requirement req, ParseRequirement(text));
    CR_RETURN_IF_ERROR(CheckAllowed(policy, req.name));
    if (!seen.insert(req.name).second) {
      return InvalidArgumentError("package '" + req.name + "' is named twice",
                                  kReasonInvalidPackage);
    }
    out.push_back(std::move(req));
  }
  return out;
}

}  // namespace coderunner::packages
