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

// The service's lists, overridden (index, allowlist) or extended (deny)
// by the tier's.
SourcePolicy Merged(SourcePolicy service, const std::string& tier_url,
                    std::vector<std::string> tier_allow,
                    const std::vector<std::string>& tier_deny) {
  if (!tier_url.empty()) service.index_url = tier_url;
  if (!tier_allow.empty()) service.allow = std::move(tier_allow);
  service.deny.insert(service.deny.end(), tier_deny.begin(), tier_deny.end());
  return service;
}

}  // namespace

PackagePolicy PolicyFor(const config::Config& config, const config::TierConfig* tier) {
  const config::PackagesConfig& p = config.packages;
  PackagePolicy out;
  out.python = {p.python_index_url, Normalized(p.allow), Normalized(p.deny)};
  out.npm = {p.npm_registry_url, p.npm_allow, p.npm_deny};
  if (tier != nullptr) {
    out.python = Merged(std::move(out.python), tier->python_index_url,
                        Normalized(tier->package_allow), Normalized(tier->package_deny));
    out.npm = Merged(std::move(out.npm), tier->npm_registry_url, tier->npm_package_allow,
                     tier->npm_package_deny);
  }
  return out;
}

Status CheckAllowed(const SourcePolicy& policy, std::string_view normalized_name) {
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

StatusOr<std::vector<Requirement>> CheckPackageRequest(Ecosystem ecosystem,
                                                       const std::vector<std::string>& texts,
                                                       const config::Config& config,
                                                       const config::TierConfig* tier) {
  std::vector<Requirement> out;
  if (texts.empty()) return out;
  const PackagePolicy all = PolicyFor(config, tier);
  const SourcePolicy& policy = all.Of(ecosystem);
  const std::string field = std::string("packages.") + EcosystemName(ecosystem);
  if (policy.index_url.empty()) {
    return FailedPreconditionError(ecosystem == Ecosystem::kNpm
                                       ? "this service has no npm registry configured"
                                       : "this service has no Python package index configured",
                                   kReasonPackagesUnavailable);
  }
  const int most = config.packages.max_requirements;
  if (static_cast<int64_t>(texts.size()) > most) {
    return InvalidArgumentError(field + ": at most " + std::to_string(most) + " requirements",
                                "invalid_request");
  }
  std::set<std::string> seen;
  for (const auto& text : texts) {
    CR_ASSIGN_OR_RETURN(Requirement req, ParseRequirementOf(ecosystem, text));
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
