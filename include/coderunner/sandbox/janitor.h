// Janitor: removes what a previous run of this service left behind.
#ifndef CODERUNNER_SANDBOX_JANITOR_H_
#define CODERUNNER_SANDBOX_JANITOR_H_

#include <string>

#include "coderunner/common/status.h"
#include "coderunner/engine/containers.h"

namespace coderunner::sandbox {

struct SweepReport {
  int containers_removed = 0;
  int workspaces_removed = 0;
};

// At startup no job of this instance is live, so every container labelled
// with this instance and every job workspace under `workspace_root` is an
// orphan of a crash. Removes them. Containers of other instances sharing the
// engine are never touched. Unavailable if the engine cannot be listed
// (workspaces are still swept).
StatusOr<SweepReport> SweepOrphans(engine::ContainerClient& containers, const std::string& instance,
                                   const std::string& workspace_root);

}  // namespace coderunner::sandbox

#endif  // CODERUNNER_SANDBOX_JANITOR_H_
