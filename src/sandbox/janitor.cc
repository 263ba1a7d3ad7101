#include "coderunner/sandbox/janitor.h"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "coderunner/sandbox/container_policy.h"
#include "coderunner/sandbox/workspace.h"

namespace coderunner::sandbox {

StatusOr<SweepReport> SweepOrphans(engine::ContainerClient& containers, const std::string& instance,
                                   const std::string& workspace_root) {
  SweepReport report;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(workspace_root, ec)) {
    std::string name = entry.path().filename().string();
    // Only our own naming scheme: never delete something we did not create.
    if (name.rfind("job-", 0) != 0) continue;
    if (RemoveTree(entry.path().string()).ok()) ++report.workspaces_removed;
  }
  auto list = containers.List({{kLabelManaged, "true"}, {kLabelInstance, instance}});
  if (!list.ok()) return list.status();
  for (const auto& c : *list) {
    Status s = containers.Remove(c.id);
    if (s.ok()) {
      ++report.containers_removed;
    } else {
      spdlog::warn("janitor: remove orphan container {}: {}", c.id, s.ToString());
    }
  }
  return report;
}

}  // namespace coderunner::sandbox
