#include "coderunner/sessions/volume_guard.h"

#include "coderunner/sandbox/safe_tree.h"
#include "coderunner/volumes/volume_service.h"

namespace coderunner::sessions {

VolumeGuard::Snapshot VolumeGuard::Take() const {
  Snapshot snap;
  sandbox::TreeWalkOptions options;
  options.max_depth = volumes::kVolumeMaxDepth;
  // Past the file bound by far is over it: the walk need not go further.
  options.max_entries = volume_.max_files > 0 ? volume_.max_files * 2 : 100000;
  auto listing = sandbox::ListTree(dir_, options);
  if (!listing.ok()) return snap;
  for (const auto& f : listing->files) snap[f.path] = {f.size, f.modified_ms};
  return snap;
}

bool VolumeGuard::Over(const Snapshot& now) const {
  int64_t total = 0;
  for (const auto& [path, f] : now) total += f.first;
  return total > volume_.quota_bytes ||
         (volume_.max_files > 0 && static_cast<int64_t>(now.size()) > volume_.max_files);
}

void VolumeGuard::Settle() { settled_ = Take(); }

bool VolumeGuard::RollBackIfOver() {
  Snapshot now = Take();
  if (!Over(now)) return false;
  for (const auto& [path, f] : now) {
    auto was = settled_.find(path);
    if (was == settled_.end() || was->second != f) {
      (void)sandbox::RemoveTreeEntry(dir_, path, volumes::kVolumeMaxDepth);
    }
  }
  return true;
}

}  // namespace coderunner::sessions
