// PackageInstaller: each ecosystem's installer (install_backend.h) run the
// same way: the host's tool as a uid of its own, into a staging directory
// no container sees, bounded from outside; the result becomes a layer.
#include "coderunner/packages/package_installer.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

#include "coderunner/common/sha256.h"
#include "coderunner/isolation/workspace.h"
#include "install_backend.h"
#include "install_process.h"
#include "layer_budget.h"
#include "layer_store.h"
#include "mirror_probe.h"
#include "pip_zygote.h"

namespace coderunner::packages {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::string RequestKey(const std::string& tenant, Ecosystem ecosystem, const SourcePolicy& policy,
                       const std::vector<Requirement>& reqs,
                       const std::vector<LockedPackage>& pinned) {
  std::vector<std::string> texts;
  for (const auto& r : reqs) texts.push_back(r.Text());
  std::sort(texts.begin(), texts.end());
  std::string key = tenant + "\n" + EcosystemName(ecosystem) + "\n" + policy.index_url;
  for (const auto& t : texts) key += "\n" + t;
  for (const auto& p : pinned) {
    key += "\npinned " + p.name + " " + p.version + " " + p.sha256 + p.integrity + " " + p.path;
  }
  return Sha256Hex(key);
}

class Installer : public PackageInstaller {
 public:
  Installer(const config::PackagesConfig& config, isolation::UidPool& uids, LayerStore store,
            std::unique_ptr<PipZygote> zygote)
      : config_(config),
        uids_(uids),
        store_(std::move(store)),
        budget_(store_.layers_dir(), config.max_layers_bytes),
        zygote_(std::move(zygote)) {
    backends_[Ecosystem::kPython] = MakePipBackend(config);
    backends_[Ecosystem::kNpm] = MakeNpmBackend(config);
  }

  StatusOr<InstalledSet> Install(const std::string& tenant, Ecosystem ecosystem,
                                 const SourcePolicy& policy, const std::vector<Requirement>& reqs,
                                 const std::vector<LockedPackage>& pinned) override {
    const auto start = Clock::now();
    const std::string key = RequestKey(tenant, ecosystem, policy, reqs, pinned);
    {
      std::unique_lock lock(mu_);
      // One install of a set at a time; the others wait for its layer.
      cv_.wait(lock, [&] { return in_flight_.count(key) == 0; });
      if (auto hit = Remembered(key); hit.has_value()) {
        lock.unlock();
        CR_RETURN_IF_ERROR(CheckLock(policy, hit->lock));
        hit->cached = true;
        hit->install_ms = MsSince(start);
        return *hit;
      }
      in_flight_.insert(key);
    }
    StatusOr<InstalledSet> made =
        InstallNow(*backends_.at(ecosystem), ecosystem, policy, reqs, pinned);
    std::lock_guard lock(mu_);
    in_flight_.erase(key);
    cv_.notify_all();
    if (made.ok()) {
      made->install_ms = MsSince(start);
      InstalledSet remembered = *made;
      remembered.hold.reset();  // The memo does not keep a layer on disk.
      memo_[key] = {std::move(remembered), Clock::now() + std::chrono::milliseconds(kResolveForMs)};
    }
    return made;
  }

  std::shared_ptr<void> Hold(const std::string& layer) override { return budget_.Hold(layer); }

 private:
  struct Memo {
    InstalledSet set;
    Clock::time_point until;
  };

  // The set remembered for `key`, its layer held; none once its time is
  // up or its layer was removed (to make room, or from the disk by hand).
  // Requires mu_.
  std::optional<InstalledSet> Remembered(const std::string& key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) return std::nullopt;
    std::shared_ptr<void> hold;
    if (Clock::now() < it->second.until && store_.Exists(it->second.set.layer)) {
      hold = budget_.Hold(it->second.set.layer);
    }
    if (hold == nullptr) {
      memo_.erase(it);
      return std::nullopt;
    }
    InstalledSet set = it->second.set;
    set.hold = std::move(hold);
    return set;
  }

  StatusOr<InstalledSet> InstallNow(const InstallBackend& backend, Ecosystem ecosystem,
                                    const SourcePolicy& policy,
                                    const std::vector<Requirement>& reqs,
                                    const std::vector<LockedPackage>& pinned) {
    CR_RETURN_IF_ERROR(budget_.MakeRoom());
    CR_RETURN_IF_ERROR(ProbeMirror(backend.ProbeUrl(policy.index_url)));
    CR_ASSIGN_OR_RETURN(isolation::UidLease uid, uids_.Lease());
    CR_ASSIGN_OR_RETURN(std::string staging, store_.NewStaging(uid.uid()));
    StatusOr<InstalledSet> out =
        InstallIn(backend, ecosystem, staging, uid.uid(), policy, reqs, pinned);
    if (out.ok() && !pinned.empty() && out->lock != pinned) {
      out = FailedPreconditionError("the replayed packages are no longer those the index serves",
                                    kReasonPackageChanged);
    }
    (void)isolation::RemoveTree(staging);
    return out;
  }

  StatusOr<InstalledSet> InstallIn(const InstallBackend& backend, Ecosystem ecosystem,
                                   const std::string& staging, int64_t uid,
                                   const SourcePolicy& policy, const std::vector<Requirement>& reqs,
                                   const std::vector<LockedPackage>& pinned) {
    CR_ASSIGN_OR_RETURN(InstallCommand cmd,
                        backend.Command(staging, uid, policy.index_url, reqs, pinned));
    cmd.output_path = staging + "/install.log";
    cmd.uid = uid;
    cmd.watched_dir = staging;
    cmd.max_bytes = config_.max_installed_bytes;
    cmd.timeout = std::chrono::milliseconds(config_.install_timeout_ms);
    CR_ASSIGN_OR_RETURN(std::shared_ptr<PipZygote> zygote, Zygote());
    CR_ASSIGN_OR_RETURN(InstallRun run, zygote->Run(cmd));
    if (run.timed_out) {
      return DeadlineExceededError("installing the packages took longer than " +
                                       std::to_string(config_.install_timeout_ms) + " ms",
                                   kReasonInstallTimeout);
    }
    if (run.too_large) {
      return ResourceExhaustedError("the packages take more than " +
                                        std::to_string(config_.max_installed_bytes) +
                                        " bytes (packages.max_installed_bytes)",
                                    kReasonPackagesTooLarge);
    }
    if (run.exit_code != 0) return backend.Failure(run);
    CR_ASSIGN_OR_RETURN(auto lock, backend.ReadLock(staging));
    if (static_cast<int64_t>(lock.size()) > config_.max_packages) {
      return ResourceExhaustedError("the packages asked for come to " +
                                        std::to_string(lock.size()) +
                                        " with dependencies; at most " +
                                        std::to_string(config_.max_packages) + " may be installed",
                                    kReasonTooManyPackages);
    }
    CR_RETURN_IF_ERROR(CheckLock(policy, lock));
    InstalledSet out;
    out.ecosystem = ecosystem;
    out.layer = store_.NameOf(EcosystemName(ecosystem), lock);
    out.lock = std::move(lock);
    if (!store_.Exists(out.layer)) {
      CR_RETURN_IF_ERROR(store_.Commit(backend.Tree(staging), out.layer, backend.layer_subdir()));
    }
    out.hold = budget_.Add(out.layer);
    spdlog::info("packages: installed {} {} package(s) as layer {}", out.lock.size(),
                 EcosystemName(ecosystem), out.layer.substr(0, 12));
    return out;
  }

  // The zygote, started again when it is gone (killed, out of memory): an
  // install it was running fails, the next ones work.
  StatusOr<std::shared_ptr<PipZygote>> Zygote() {
    std::lock_guard lock(zygote_mu_);
    if (!zygote_->gone()) return zygote_;
    spdlog::warn("packages: the install zygote is gone; starting another");
    CR_ASSIGN_OR_RETURN(std::unique_ptr<PipZygote> fresh, PipZygote::Start(config_.pip_python));
    zygote_ = std::move(fresh);
    return zygote_;
  }

  // Every package of the set, dependencies included, under today's policy.
  static Status CheckLock(const SourcePolicy& policy, const std::vector<LockedPackage>& lock) {
    for (const auto& p : lock) CR_RETURN_IF_ERROR(CheckAllowed(policy, p.name));
    return OkStatus();
  }

  const config::PackagesConfig& config_;
  isolation::UidPool& uids_;
  const LayerStore store_;
  LayerBudget budget_;
  std::mutex zygote_mu_;
  std::shared_ptr<PipZygote> zygote_;  // Guarded by zygote_mu_; never null.
  std::map<Ecosystem, std::unique_ptr<InstallBackend>> backends_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> in_flight_;
  std::map<std::string, Memo> memo_;
};

}  // namespace

StatusOr<std::unique_ptr<PackageInstaller>> MakePackageInstaller(
    const config::PackagesConfig& config, isolation::UidPool& uids) {
  CR_ASSIGN_OR_RETURN(LayerStore store, LayerStore::Open(config.dir));
  if (access(config.npm_command.c_str(), X_OK) != 0) {
    spdlog::warn("packages: {} is not there; npm packages will fail", config.npm_command);
  }
  CR_ASSIGN_OR_RETURN(std::unique_ptr<PipZygote> zygote, PipZygote::Start(config.pip_python));
  return std::unique_ptr<PackageInstaller>(
      new Installer(config, uids, std::move(store), std::move(zygote)));
}

}  // namespace coderunner::packages
