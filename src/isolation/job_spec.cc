#include "coderunner/isolation/job_spec.h"

namespace coderunner::isolation {

std::string_view RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kSucceeded:
      return "succeeded";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kTimeout:
      return "timeout";
    case RunStatus::kOom:
      return "oom";
    case RunStatus::kCancelled:
      return "cancelled";
    case RunStatus::kError:
      return "error";
  }
  return "error";
}

}  // namespace coderunner::isolation
