// Packages installed into a running sandbox: by `pip install` and `npm
// install` inside it (through the package gateway) or by
// POST /v1/sandboxes/{id}/packages. One set per sandbox, grown by each
// install, installed outside it and linked into its workspace.
#include <spdlog/spdlog.h>

#include "coderunner/isolation/mechanism.h"
#include "coderunner/isolation/workspace.h"
#include "coderunner/packages/package_policy.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "package_gateway.h"
#include "wall_clock.h"

namespace coderunner::sandboxes {
namespace {

// The sandbox's set so far with `asked` added: a package named again takes
// its new requirement.
std::vector<packages::Requirement> Grown(packages::Ecosystem ecosystem,
                                         const std::vector<std::string>& had,
                                         const std::vector<packages::Requirement>& asked) {
  std::vector<packages::Requirement> all;
  for (const auto& text : had) {
    auto r = packages::ParseRequirementOf(ecosystem, text);
    if (r.ok()) all.push_back(std::move(*r));
  }
  for (const auto& a : asked) {
    std::erase_if(all, [&](const packages::Requirement& r) { return r.name == a.name; });
    all.push_back(a);
  }
  return all;
}

// Points the workspace's links at `layer`, each replaced in one step: the
// next import or require in the sandbox finds the new set.
Status LinkLayer(const std::string& workspace, const std::string& layer,
                 packages::Ecosystem ecosystem) {
  const std::string target = std::string(isolation::kPackagesMount) + "/" + layer;
  CR_RETURN_IF_ERROR(
      isolation::Workspace::ReplaceSymlinkIn(workspace, isolation::kPackagesLink, target));
  if (ecosystem != packages::Ecosystem::kNpm) return OkStatus();
  return isolation::Workspace::ReplaceSymlinkIn(workspace, isolation::kNodeModulesLink,
                                                target + "/node_modules");
}

}  // namespace

StatusOr<packages::InstalledSet> SandboxManager::AddPackages(
    const auth::Principal& who, const std::string& id, packages::Ecosystem ecosystem,
    const std::vector<std::string>& names) {
  CR_ASSIGN_OR_RETURN(std::shared_ptr<Entry> e, Find(who.tenant, id));
  return InstallInto(*e, ecosystem, names);
}

nlohmann::json SandboxManager::GatewayAnswer(const std::string& id, const std::string& ecosystem,
                                             const std::vector<std::string>& names) {
  std::shared_ptr<Entry> e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = entries_.find(id); it != entries_.end() && !it->second->gone) e = it->second;
  }
  if (e == nullptr)
    return GatewayRefusal(NotFoundError("no sandbox " + id, kReasonSandboxNotFound));
  if (ecosystem != "python" && ecosystem != "npm") {
    return GatewayRefusal(InvalidArgumentError("ecosystem is python or npm", "invalid_request"));
  }
  auto set = InstallInto(
      *e, ecosystem == "npm" ? packages::Ecosystem::kNpm : packages::Ecosystem::kPython, names);
  if (!set.ok()) return GatewayRefusal(set.status());
  return {{"ok", true},
          {"packages", packages::LockToJson(set->lock)},
          {"cached", set->cached},
          {"install_ms", set->install_ms}};
}

StatusOr<packages::InstalledSet> SandboxManager::InstallInto(
    Entry& e, packages::Ecosystem ecosystem, const std::vector<std::string>& names) {
  if (installer_ == nullptr) {
    return FailedPreconditionError("this service installs no packages",
                                   packages::kReasonPackagesUnavailable);
  }
  const std::string wanted = packages::EcosystemName(ecosystem);
  if (e.driver.package_ecosystem != wanted) {
    return InvalidArgumentError(
        "a " + e.spec.language.name + " sandbox takes " +
            (e.driver.package_ecosystem.empty() ? std::string("no packages")
                                                : e.driver.package_ecosystem + " packages") +
            ", not " + wanted + " ones",
        "invalid_request");
  }
  std::lock_guard<std::mutex> installing(e.packages_mu);
  SandboxRecord rec;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (e.gone || e.record.state != SandboxState::kRunning) {
      return FailedPreconditionError("sandbox " + e.record.id + " is not running",
                                     kReasonSandboxNotRunning);
    }
    rec = e.record;
  }
  const config::TierConfig* tier = rec.tier.empty() ? nullptr : config_.FindTier(rec.tier);
  CR_ASSIGN_OR_RETURN(std::vector<packages::Requirement> asked,
                      packages::CheckPackageRequest(ecosystem, names, config_, tier));
  std::vector<packages::Requirement> all = Grown(ecosystem, rec.packages, asked);
  if (static_cast<int64_t>(all.size()) > config_.packages.max_requirements) {
    return InvalidArgumentError("a sandbox holds at most " +
                                    std::to_string(config_.packages.max_requirements) +
                                    " requirements (packages.max_requirements)",
                                "invalid_request");
  }
  const packages::SourcePolicy policy = packages::PolicyFor(config_, tier).Of(ecosystem);
  CR_ASSIGN_OR_RETURN(packages::InstalledSet set,
                      installer_->Install(rec.tenant, ecosystem, policy, all, {}));
  CR_RETURN_IF_ERROR(LinkLayer(layout_.workspace_root + "/" + rec.id, set.layer, ecosystem));
  SandboxRecord snapshot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    e.package_hold = set.hold;  // The layer stays while the sandbox runs.
    e.record.packages.clear();
    for (const auto& r : all) e.record.packages.push_back(r.Text());
    e.record.package_layer = set.layer;
    e.record.last_used_at_ms = NowMs();
    snapshot = e.record;
  }
  Persist(snapshot);
  spdlog::info("sandbox {}: {} {} package(s) as layer {}", rec.id, set.lock.size(), wanted,
               set.layer.substr(0, 12));
  return set;
}

}  // namespace coderunner::sandboxes
