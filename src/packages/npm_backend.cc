// The npm backend: the host's npm with --ignore-scripts (no install script
// of any package runs, anywhere), into node_modules under the staging
// directory; its hidden lockfile read back as the lock. A replay runs
// `npm ci` on a lockfile the service writes from the original's lock.
#include <sys/stat.h>
#include <unistd.h>

#include "install_backend.h"
#include "npm_output.h"

namespace coderunner::packages {
namespace {

constexpr char kNodeModulesSubdir[] = "node_modules";  // What jobs resolve from.
constexpr char kPrefixDir[] = "npm";                   // npm --prefix, in staging.
constexpr char kUserConfig[] = "npmrc";                // Empty: no user's settings.
constexpr char kHiddenLock[] = "node_modules/.package-lock.json";
// A registry that answers nothing within this is down.
constexpr char kFetchTimeoutMs[] = "15000";

class NpmBackend : public InstallBackend {
 public:
  explicit NpmBackend(const config::PackagesConfig& config) : config_(config) {}

  const char* layer_subdir() const override { return kNodeModulesSubdir; }
  // npm's own health check (`npm ping`).
  std::string ProbeUrl(const std::string& index_url) const override {
    return index_url + (index_url.ends_with("/") ? "" : "/") + "-/ping";
  }
  std::string Tree(const std::string& staging) const override {
    return staging + "/" + kPrefixDir + "/" + kNodeModulesSubdir;
  }

  StatusOr<InstallCommand> Command(const std::string& staging, int64_t uid,
                                   const std::string& index_url,
                                   const std::vector<Requirement>& reqs,
                                   const std::vector<LockedPackage>& pinned) const override {
    const std::string prefix = staging + "/" + kPrefixDir;
    if (mkdir(prefix.c_str(), 0700) != 0 ||
        chown(prefix.c_str(), static_cast<uid_t>(uid), static_cast<gid_t>(uid)) != 0) {
      return InternalError("cannot make " + prefix, kReasonInstallFailed);
    }
    CR_RETURN_IF_ERROR(WriteNewFile(staging + "/" + kUserConfig, "", uid));
    InstallCommand cmd;
    cmd.argv = {config_.npm_command, pinned.empty() ? "install" : "ci"};
    if (!pinned.empty()) {
      NpmReplayFiles files = MakeNpmReplayFiles(pinned);
      CR_RETURN_IF_ERROR(WriteNewFile(prefix + "/package.json", files.package_json, uid));
      CR_RETURN_IF_ERROR(WriteNewFile(prefix + "/package-lock.json", files.package_lock_json, uid));
    }
    // No install script runs (--ignore-scripts), nothing is linked into
    // .bin, nothing outside staging is read as config or written as cache.
    const std::vector<std::string> flags = {"--prefix",         prefix,
                                            "--registry",       index_url,
                                            "--userconfig",     staging + "/" + kUserConfig,
                                            "--globalconfig",   "/dev/null",
                                            "--cache",          staging + "/cache",
                                            "--ignore-scripts", "--no-audit",
                                            "--no-fund",        "--no-update-notifier",
                                            "--no-progress",    "--bin-links=false",
                                            "--fetch-retries",  "0",
                                            "--fetch-timeout",  kFetchTimeoutMs,
                                            "--loglevel=error"};
    cmd.argv.insert(cmd.argv.end(), flags.begin(), flags.end());
    if (pinned.empty()) cmd.argv.push_back("--no-save");
    cmd.argv.push_back("--");
    if (pinned.empty()) {
      for (const auto& r : reqs) cmd.argv.push_back(r.Text());
    }
    cmd.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
               {"HOME", staging},
               {"TMPDIR", staging},
               {"LANG", "C.UTF-8"}};
    cmd.cwd = prefix;
    return cmd;
  }

  StatusOr<std::vector<LockedPackage>> ReadLock(const std::string& staging) const override {
    return ParseNpmHiddenLock(
        ReadTail(staging + "/" + kPrefixDir + "/" + kHiddenLock, kMaxNpmLockBytes));
  }

  Status Failure(const InstallRun& run) const override {
    return NpmFailure(run.exit_code, run.output);
  }

 private:
  const config::PackagesConfig& config_;
};

}  // namespace

std::unique_ptr<InstallBackend> MakeNpmBackend(const config::PackagesConfig& config) {
  return std::make_unique<NpmBackend>(config);
}

}  // namespace coderunner::packages
