// What pip said: its report of what it installed (pip install --report),
// and the failure its output names. Private to src/packages; pure, so the
// unit tests feed them pip's own words.
#ifndef CODERUNNER_SRC_PACKAGES_PIP_OUTPUT_H_
#define CODERUNNER_SRC_PACKAGES_PIP_OUTPUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/packages/package_installer.h"

namespace coderunner::packages {

// The longest report taken: pip's report of a few hundred packages is well
// under it.
inline constexpr int64_t kMaxPipReportBytes = 8 << 20;

// The packages of a pip installation report (format version 1), sorted by
// name: each with its normalized name, version and the sha256 of the file
// pip installed. Internal "package_install_failed" for a report that is not
// one, or names a package pip gave no sha256 for.
StatusOr<std::vector<LockedPackage>> ParsePipReport(std::string_view report_json);

// The status for a pip that exited non-zero with `output`:
// package_not_found naming the requirement (and the versions the index
// has), package_conflict quoting what depends on what, packages_too_large
// when a write passed RLIMIT_FSIZE (EFBIG), else
// package_install_failed with pip's last error line and its exit code.
Status PipFailure(int exit_code, std::string_view output);

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_PIP_OUTPUT_H_
