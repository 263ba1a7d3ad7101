// PackageInstaller: turns the packages a job asks for into a read-only
// layer the job's container mounts, outside the job (docs/packages.md).
#ifndef CODERUNNER_PACKAGES_PACKAGE_INSTALLER_H_
#define CODERUNNER_PACKAGES_PACKAGE_INSTALLER_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/isolation/uid_pool.h"
#include "coderunner/packages/package_policy.h"
#include "coderunner/packages/requirement.h"

namespace coderunner::packages {

// Error codes of an install that did not give a layer. Each message names
// the package when one is to blame.
inline constexpr char kReasonPackageNotFound[] = "package_not_found";  // No such name or version.
inline constexpr char kReasonPackageConflict[] = "package_conflict";   // Requirements disagree.
inline constexpr char kReasonMirrorUnavailable[] = "package_mirror_unavailable";
inline constexpr char kReasonPackagesTooLarge[] = "packages_too_large";
inline constexpr char kReasonTooManyPackages[] = "too_many_packages";
inline constexpr char kReasonInstallTimeout[] = "package_install_timeout";
inline constexpr char kReasonInstallFailed[] = "package_install_failed";
inline constexpr char kReasonPackageChanged[] = "package_changed";  // A pinned file is not there.
// Layers in use fill packages.max_layers_bytes.
inline constexpr char kReasonPackageStoreFull[] = "package_store_full";

// How long the layer of a request is reused without asking the index
// again, which may since have a newer version that a range admits.
inline constexpr int64_t kResolveForMs = 10 * 60 * 1000;

// One installed package, as the lock records it.
struct LockedPackage {
  std::string name;     // Python: normalized. npm: as the registry has it.
  std::string version;  // As the index gave it.
  std::string sha256;   // Python: of the wheel installed, lower-case hex.
  // npm: the registry's integrity of the tarball ("sha512-<base64>"), and
  // where npm put it ("node_modules/a", "node_modules/a/node_modules/b").
  std::string integrity;
  std::string path;
  bool operator==(const LockedPackage&) const = default;
};

// A lock as results record it, and back: Python's [{"name", "version",
// "sha256"}] sorted by name; npm's [{"name", "version", "integrity",
// "path"}] sorted by path. ParseLock refuses (InvalidArgument
// "invalid_package") an entry whose name and version are not a
// requirement, whose sha256 is not 64 lower-case hex digits, whose
// integrity is not a sha512, or whose path is not node_modules/ paths
// ending in its name. Pure.
nlohmann::json LockToJson(const std::vector<LockedPackage>& lock);
StatusOr<std::vector<LockedPackage>> ParseLock(Ecosystem ecosystem, const nlohmann::json& lock);

// A layer ready to mount.
struct InstalledSet {
  Ecosystem ecosystem = Ecosystem::kPython;
  // The layer's directory name under packages.dir/layers: a keyed hash of
  // the lock, which no job can guess or list. It holds python/ (Python's
  // packages) or node_modules/ (npm's).
  std::string layer;
  std::vector<LockedPackage> lock;  // Sorted as ParseLock sorts.
  bool cached = false;              // Nothing was installed for this job.
  int64_t install_ms = 0;           // Time this call took.
  // Keeps the layer on disk while it (or a copy) lives: hold it for the
  // job's run, or the sandbox's life. Unheld layers are removed, least
  // recently used first, when the layers pass packages.max_layers_bytes.
  std::shared_ptr<void> hold;
};

class PackageInstaller {
 public:
  virtual ~PackageInstaller() = default;
  // Installs `requirements` of `ecosystem` (checked:
  // packages::CheckPackageRequest) from policy.index_url for `tenant`, with
  // their dependencies, each of which the policy must allow too. The same
  // tenant's same requirements under the same index give the layer already
  // made, without asking the index again, for ten minutes (kResolveForMs).
  // Another tenant's install of the same set runs the installer again (and
  // reports cached: false), so that nothing tells a tenant what another one
  // installed; the layer on disk is shared. Errors: the reasons above, and
  // package_refused for a refused dependency. Blocks for up to
  // packages.install_timeout_ms. Thread-safe.
  // With `pinned` (a replay's: the original's lock), exactly those files
  // are installed, by hash, and nothing else (package_changed when the
  // index no longer serves one of them).
  virtual StatusOr<InstalledSet> Install(const std::string& tenant, Ecosystem ecosystem,
                                         const SourcePolicy& policy,
                                         const std::vector<Requirement>& requirements,
                                         const std::vector<LockedPackage>& pinned) = 0;
  // A hold on layer `layer` (InstalledSet::hold) for a user that outlived
  // the process that installed it (a sandbox after a restart); null when
  // the layer is gone. Thread-safe.
  virtual std::shared_ptr<void> Hold(const std::string& layer) = 0;
};

// Installs into packages.dir, each install as a uid of its own from `uids`:
// Python packages with the host's pip (packages.pip_python's), wheels only;
// npm packages with the host's npm (packages.npm_command), whose install
// scripts never run. Prepares packages.dir (layers/ and staging/ 0711, the
// layer key) and starts pip (imported once, forked per install) now:
// Internal "packages_dir_unusable" or "install_spawn_failed" if it cannot.
StatusOr<std::unique_ptr<PackageInstaller>> MakePackageInstaller(
    const config::PackagesConfig& config, isolation::UidPool& uids);

}  // namespace coderunner::packages

#endif  // CODERUNNER_PACKAGES_PACKAGE_INSTALLER_H_
