// RemoveExitingContainer: a forced removal, tried again while the engine
// refuses it for racing with the container's exit.
#include "coderunner/isolation/container_removal.h"

#include <thread>

namespace coderunner::isolation {

Status RemoveExitingContainer(engine::ContainerClient& containers, const std::string& id) {
  Status removed = containers.Remove(id);
  for (int retry = 0;
       retry < kRemovalRetries && !removed.ok() && removed.code() != StatusCode::kUnavailable;
       ++retry) {
    std::this_thread::sleep_for(kRemovalRetryPause);
    removed = containers.Remove(id);
  }
  return removed;
}

}  // namespace coderunner::isolation
