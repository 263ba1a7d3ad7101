// The host uid range for job containers (config keys sandbox.uid_first and
// sandbox.uid_count), and what makes it usable. isolation::UidPool hands out
// its uids.
#ifndef CODERUNNER_CONFIG_UID_RANGE_H_
#define CODERUNNER_CONFIG_UID_RANGE_H_

#include <cstdint>

#include "coderunner/common/status.h"

namespace coderunner::config {

// Lowest uid a job may get: below it lie the system accounts.
inline constexpr int64_t kLowestJobUid = 1000;
// Highest: Docker and Podman take a uid as a signed 32-bit number, and
// 2^31-1 is reserved as "no uid" by some tools.
inline constexpr int64_t kHighestJobUid = (int64_t{1} << 31) - 2;

// OK when [first, first + count) lies within [kLowestJobUid, kHighestJobUid]
// and holds at least one uid; else InvalidArgument "invalid_config" naming
// the range. Pure; thread-safe.
Status ValidateUidRange(int64_t first, int64_t count);

}  // namespace coderunner::config

#endif  // CODERUNNER_CONFIG_UID_RANGE_H_
