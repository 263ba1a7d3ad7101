// PipInstaller: the host's pip, wheels only, as a uid of its own, into a
// staging directory no container sees; the result becomes a layer.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "coderunner/common/sha256.h"
#include "coderunner/isolation/workspace.h"
#include "coderunner/packages/package_installer.h"
#include "install_process.h"
#include "layer_store.h"
#include "mirror_probe.h"
#include "pip_output.h"
#include "pip_zygote.h"
#include "platform_tags.h"

namespace coderunner::packages {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kPythonSubdir[] = "python";  // The layer's PYTHONPATH entry.

int64_t MsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::string RequestKey(const std::string& tenant, const PackagePolicy& policy,
                       const std::vector<Requirement>& reqs,
                       const std::vector<LockedPackage>& pinned) {
  std::vector<std::string> texts;
  for (const auto& r : reqs) texts.push_back(r.Text());
  std::sort(texts.begin(), texts.end());
  std::string key = tenant + "\n" + policy.python_index_url;
  for (const auto& t : texts) key += "\n" + t;
  for (const auto& p : pinned) key += "\npinned " + p.name + " " + p.version + " " + p.sha256;
  return Sha256Hex(key);
}

// A replay's requirements file: each pinned file by name, version and hash
// (pip --require-hashes), written by the service before pip runs.
Status WritePins(const std::string& path, const std::vector<LockedPackage>& pinned) {
  std::string text;
  for (const auto& p : pinned)
    text += p.name + "==" + p.version + " --hash=sha256:" + p.sha256 + "\n";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) close(fd);
  return ok ? OkStatus() : InternalError("cannot write " + path, kReasonInstallFailed);
}

// "3.11" -> "cp311": the ABI of CPython wheels built for that version.
std::string CpythonAbi(const std::string& version) {
  std::string digits;
  for (char c : version) {
    if (c != '.') digits.push_back(c);
  }
  return "cp" + digits;
}

class PipInstaller : public PackageInstaller {
 public:
  PipInstaller(const config::PackagesConfig& config, isolation::UidPool& uids, LayerStore store,
               std::unique_ptr<PipZygote> pip)
      : config_(config), uids_(uids), store_(std::move(store)), pip_(std::move(pip)) {}

  StatusOr<InstalledSet> InstallPython(const std::string& tenant, const PackagePolicy& policy,
                                       const std::vector<Requirement>& reqs,
                                       const std::vector<LockedPackage>& pinned) override {
    const auto start = Clock::now();
    const std::string key = RequestKey(tenant, policy, reqs, pinned);
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
    StatusOr<InstalledSet> made = InstallNow(policy, reqs, pinned);
    std::lock_guard lock(mu_);
    in_flight_.erase(key);
    cv_.notify_all();
    if (made.ok()) {
      made->install_ms = MsSince(start);
      memo_[key] = {*made, Clock::now() + std::chrono::milliseconds(kResolveForMs)};
    }
    return made;
  }

 private:
  struct Memo {
    InstalledSet set;
    Clock::time_point until;
  };

  // Requires mu_.
  std::optional<InstalledSet> Remembered(const std::string& key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) return std::nullopt;
    if (Clock::now() >= it->second.until || !store_.Exists(it->second.set.layer)) {
      memo_.erase(it);
      return std::nullopt;
    }
    return it->second.set;
  }

  StatusOr<InstalledSet> InstallNow(const PackagePolicy& policy,
                                    const std::vector<Requirement>& reqs,
                                    const std::vector<LockedPackage>& pinned) {
    CR_RETURN_IF_ERROR(ProbeMirror(policy.python_index_url));
    CR_ASSIGN_OR_RETURN(isolation::UidLease uid, uids_.Lease());
    CR_ASSIGN_OR_RETURN(std::string staging, store_.NewStaging(uid.uid()));
    // What pip is asked for: the requirements, or a replay's pinned files.
    std::vector<std::string> wanted;
    for (const auto& r : reqs) wanted.push_back(r.Text());
    Status pins_written = OkStatus();
    if (!pinned.empty()) {
      pins_written = WritePins(staging + "/pins.txt", pinned);
      wanted = {"--no-deps", "--require-hashes", "-r", staging + "/pins.txt"};
    }
    StatusOr<InstalledSet> out = pins_written.ok() ? InstallIn(staging, uid.uid(), policy, wanted)
                                                   : StatusOr<InstalledSet>(pins_written);
    if (out.ok() && !pinned.empty() && out->lock != pinned) {
      out = FailedPreconditionError("the replayed packages are no longer those the index serves",
                                    kReasonPackageChanged);
    }
    (void)isolation::RemoveTree(staging);
    return out;
  }

  StatusOr<InstalledSet> InstallIn(const std::string& staging, int64_t uid,
                                   const PackagePolicy& policy,
                                   const std::vector<std::string>& wanted) {
    InstallCommand cmd;
    cmd.argv = PipArgs(staging, policy, wanted);
    cmd.env = {{"PATH", "/usr/bin:/bin"},
               {"HOME", staging},
               {"TMPDIR", staging},
               {"LANG", "C.UTF-8"},
               {"PIP_CONFIG_FILE", "/dev/null"},
               {"PYTHONNOUSERSITE", "1"}};
    cmd.cwd = staging;
    cmd.output_path = staging + "/pip.log";
    cmd.uid = uid;
    cmd.watched_dir = staging;
    cmd.max_bytes = config_.max_installed_bytes;
    cmd.timeout = std::chrono::milliseconds(config_.install_timeout_ms);
    CR_ASSIGN_OR_RETURN(InstallRun run, pip_->Run(cmd));
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
    if (run.exit_code != 0) return PipFailure(run.exit_code, run.output);
    CR_ASSIGN_OR_RETURN(auto lock,
                        ParsePipReport(ReadTail(staging + "/report.json", kMaxPipReportBytes)));
    if (static_cast<int64_t>(lock.size()) > config_.max_packages) {
      return ResourceExhaustedError("the packages asked for come to " +
                                        std::to_string(lock.size()) +
                                        " with dependencies; at most " +
                                        std::to_string(config_.max_packages) + " may be installed",
                                    kReasonTooManyPackages);
    }
    CR_RETURN_IF_ERROR(CheckLock(policy, lock));
    InstalledSet out;
    out.layer = store_.NameOf("python", lock);
    out.lock = std::move(lock);
    if (!store_.Exists(out.layer)) {
      CR_RETURN_IF_ERROR(store_.Commit(staging + "/" + kPythonSubdir, out.layer, kPythonSubdir));
    }
    spdlog::info("packages: installed {} python package(s) as layer {}", out.lock.size(),
                 out.layer.substr(0, 12));
    return out;
  }

  // Every package of the set, dependencies included, under today's policy.
  static Status CheckLock(const PackagePolicy& policy, const std::vector<LockedPackage>& lock) {
    for (const auto& p : lock) CR_RETURN_IF_ERROR(CheckAllowed(policy, p.name));
    return OkStatus();
  }

  std::vector<std::string> PipArgs(const std::string& staging, const PackagePolicy& policy,
                                   const std::vector<std::string>& wanted) const {
    std::vector<std::string> argv = {kZygotePip};
    // --no-warn-conflicts: pip would check the set against every package
    // of the host's own Python (measured: nine tenths of an install's
    // time), which says nothing of a --target layer.
    for (const char* arg : {"install", "--no-cache-dir", "--disable-pip-version-check",
                            "--no-input", "--no-color", "--progress-bar", "off", "--retries", "0",
                            "--timeout", "15", "--only-binary=:all:", "--ignore-installed",
                            "--no-warn-conflicts", "--implementation", "cp"}) {
      argv.push_back(arg);
    }
    argv.insert(argv.end(), {"--index-url", policy.python_index_url});
    argv.insert(argv.end(), {"--python-version", config_.python_version});
    argv.insert(argv.end(), {"--abi", CpythonAbi(config_.python_version)});
    for (const auto& platform : ExpandPlatforms(config_.python_platforms)) {
      argv.insert(argv.end(), {"--platform", platform});
    }
    argv.insert(argv.end(), {"--target", staging + "/" + kPythonSubdir});
    argv.insert(argv.end(), {"--report", staging + "/report.json"});
    argv.insert(argv.end(), wanted.begin(), wanted.end());
    return argv;
  }

  const config::PackagesConfig& config_;
  isolation::UidPool& uids_;
  const LayerStore store_;
  const std::unique_ptr<PipZygote> pip_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> in_flight_;
  std::map<std::string, Memo> memo_;
};

}  // namespace

StatusOr<std::unique_ptr<PackageInstaller>> MakePipInstaller(const config::PackagesConfig& config,
                                                             isolation::UidPool& uids) {
  CR_ASSIGN_OR_RETURN(LayerStore store, LayerStore::Open(config.dir));
  CR_ASSIGN_OR_RETURN(std::unique_ptr<PipZygote> pip, PipZygote::Start(config.pip_python));
  return std::unique_ptr<PackageInstaller>(
      new PipInstaller(config, uids, std::move(store), std::move(pip)));
}

}  // namespace coderunner::packages
