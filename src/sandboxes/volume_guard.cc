#include "coderunner/sandboxes/volume_guard.h"

#include <spdlog/spdlog.h>

#include "coderunner/isolation/output_usage.h"

namespace coderunner::sandboxes {

void VolumeGuard::Settle() {
  const isolation::OutputLimits limits{volume_.quota_bytes, 0, volume_.max_files};
  if (settled_once_ &&
      !isolation::BrokenBound(limits, isolation::MeasureOutput(dir_, limits)).empty()) {
    return;
  }
  settled_once_ = true;
  auto snap = isolation::OutputSnapshot::Take(dir_, 0);
  settled_ = snap.ok() ? std::move(*snap) : isolation::OutputSnapshot();
}

bool VolumeGuard::RollBackIfOver(bool breached) {
  const isolation::OutputLimits limits{volume_.quota_bytes, 0, volume_.max_files};
  if (!breached && isolation::BrokenBound(limits, isolation::MeasureOutput(dir_, limits)).empty()) {
    return false;
  }
  Status undone = settled_.RollBack(dir_);
  if (!undone.ok()) spdlog::error("volume {}: {}", volume_.id, undone.ToString());
  return true;
}

}  // namespace coderunner::sandboxes
