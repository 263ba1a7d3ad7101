// InstallBackend: what differs between pip and npm in an install (the
// command, where it leaves the tree, how the lock is read back, what a
// failure means). The installer (package_installer.cc) does the rest the
// same for both: the probe, the uid, the staging directory, the bounds,
// the policy over the lock, the layer. Private to src/packages.
#ifndef CODERUNNER_SRC_PACKAGES_INSTALL_BACKEND_H_
#define CODERUNNER_SRC_PACKAGES_INSTALL_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/packages/package_installer.h"
#include "install_process.h"

namespace coderunner::packages {

class InstallBackend {
 public:
  virtual ~InstallBackend() = default;
  // The layer's directory the installed tree becomes ("python",
  // "node_modules").
  virtual const char* layer_subdir() const = 0;
  // What is asked of the index first, to tell a mirror that is down from a
  // missing package.
  virtual std::string ProbeUrl(const std::string& index_url) const = 0;
  // The command that installs `wanted` from `index_url` into `staging`
  // (argv, environment and working directory; the installer adds the uid
  // and the bounds), or a replay's `pinned` files exactly, by hash. Writes
  // what that command reads (a replay's pins) into `staging` first.
  // `staging` is `uid`'s (0700); what is written into it for the command
  // is made `uid`'s too.
  virtual StatusOr<InstallCommand> Command(const std::string& staging, int64_t uid,
                                           const std::string& index_url,
                                           const std::vector<Requirement>& wanted,
                                           const std::vector<LockedPackage>& pinned) const = 0;
  // The installed tree in `staging`.
  virtual std::string Tree(const std::string& staging) const = 0;
  // What the command installed, as a lock (sorted as ParseLock sorts).
  virtual StatusOr<std::vector<LockedPackage>> ReadLock(const std::string& staging) const = 0;
  // The status of a command that exited non-zero (or was killed).
  virtual Status Failure(const InstallRun& run) const = 0;
};

// pip (the zygote's, kZygotePip): wheels only, for packages.python_version
// and python_platforms.
std::unique_ptr<InstallBackend> MakePipBackend(const config::PackagesConfig& config);
// npm (packages.npm_command) with --ignore-scripts.
std::unique_ptr<InstallBackend> MakeNpmBackend(const config::PackagesConfig& config);

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_INSTALL_BACKEND_H_
