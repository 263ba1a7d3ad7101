// What npm said and what it is told: its hidden lockfile read back as the
// lock, the files a replay gives `npm ci`, and the failure its output
// names. Private to src/packages; pure, so the unit tests feed them npm's
// own words.
#ifndef CODERUNNER_SRC_PACKAGES_NPM_OUTPUT_H_
#define CODERUNNER_SRC_PACKAGES_NPM_OUTPUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/packages/package_installer.h"

namespace coderunner::packages {

// The longest hidden lockfile taken: a few hundred packages are well under.
inline constexpr int64_t kMaxNpmLockBytes = 8 << 20;

// The packages of npm's node_modules/.package-lock.json (lockfileVersion
// 3), sorted by path: each with its name, version, integrity and path.
// Internal "package_install_failed" for a file that is not one; FailedPrecondition
// "package_refused" for a package that came from outside the registry (a
// git or file dependency: no integrity) or under another name (an alias).
StatusOr<std::vector<LockedPackage>> ParseNpmHiddenLock(std::string_view lockfile_json);

// What `npm ci` is given to install `pinned` exactly: a package.json whose
// dependencies are the top-level packages at their versions, and a
// package-lock.json (lockfileVersion 3) with every package at its path and
// its integrity (npm finds the tarball on the registry it is given), each
// nested one declared by its parent.
struct NpmReplayFiles {
  std::string package_json;
  std::string package_lock_json;
};
NpmReplayFiles MakeNpmReplayFiles(const std::vector<LockedPackage>& pinned);

// The status for an npm that exited non-zero with `output`:
// package_not_found naming the package (E404, ETARGET), package_conflict
// quoting npm's reason (ERESOLVE), package_changed (EINTEGRITY),
// packages_too_large (EFBIG), package_mirror_unavailable (the registry
// stopped answering), else package_install_failed with npm's error code.
Status NpmFailure(int exit_code, std::string_view output);

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_NPM_OUTPUT_H_
