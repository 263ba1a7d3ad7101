#include "coderunner/store/queue_bounds.h"

#include <string>

namespace coderunner::store {

Status CheckQueueBounds(int64_t tenant_queued, int64_t total_queued, const QueueBounds& bounds) {
  if (bounds.tenant_max > 0 && tenant_queued + bounds.tenant_extra >= bounds.tenant_max) {
    return ResourceExhaustedError(
        "the tenant has " + std::to_string(tenant_queued + bounds.tenant_extra) +
            " queued jobs, the most allowed (" + std::to_string(bounds.tenant_max) + ")",
        kReasonTierQueueFull);
  }
  if (bounds.total_max > 0 && total_queued >= bounds.total_max) {
    return ResourceExhaustedError("the queue holds " + std::to_string(total_queued) +
                                      " jobs, the most allowed (" +
                                      std::to_string(bounds.total_max) + ")",
                                  kReasonQueueFull);
  }
  return OkStatus();
}

}  // namespace coderunner::store
