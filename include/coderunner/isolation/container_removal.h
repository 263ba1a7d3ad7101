// Removing a container that may be exiting at the same moment.
//
// Podman 4.3 refuses a forced removal that races with the container's own
// exit ("could not be stopped: container state improper"): a container
// whose init was just killed, or whose job just ended, can fail its first
// removal and be gone a moment later. Every removal of such a container
// goes through RemoveExitingContainer, so none outlives its owner for that.
#ifndef CODERUNNER_ISOLATION_CONTAINER_REMOVAL_H_
#define CODERUNNER_ISOLATION_CONTAINER_REMOVAL_H_

#include <chrono>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/engine/containers.h"

namespace coderunner::isolation {

// Further attempts after a refused removal, and the pause before each.
inline constexpr int kRemovalRetries = 3;
inline constexpr std::chrono::milliseconds kRemovalRetryPause{200};

// Force-removes `id` (a container already gone counts as removed). A refusal
// by the engine is tried again up to kRemovalRetries times; an unreachable
// engine (kUnavailable) is not, as no pause brings it back: the caller keeps
// the id for later. Returns the last attempt's status.
Status RemoveExitingContainer(engine::ContainerClient& containers, const std::string& id);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_CONTAINER_REMOVAL_H_
