#include "coderunner/config/uid_range.h"

#include <string>

namespace coderunner::config {

Status ValidateUidRange(int64_t first, int64_t count) {
  if (first < kLowestJobUid || count < 1 || first > kHighestJobUid - count + 1) {
    return InvalidArgumentError("uid range [" + std::to_string(first) + ", " +
                                    std::to_string(first) + "+" + std::to_string(count) +
                                    ") must lie within [" + std::to_string(kLowestJobUid) + ", " +
                                    std::to_string(kHighestJobUid) + "] and hold at least one uid",
                                "invalid_config");
  }
  return OkStatus();
}

}  // namespace coderunner::config
