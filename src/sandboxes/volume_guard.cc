#include "coderunner/sandboxes/volume_guard.h"

#include "coderunner/isolation/safe_tree.h"
#include "coderunner/volumes/volume_service.h"

namespace coderunner::sandboxes {

VolumeGuard::Snapshot VolumeGuard::Take() const {
  Snapshot snap;
  isolation::TreeWalkOptions options;
  options.max_depth = volumes::kVolumeMaxDepth;
  // Past the file bound by far is over it: the walk need not go further.
  options.max_entries = volume_.max_files > 0 ? volume_.max_files * 2 : 100000;
  auto listing = isolation::ListTree(dir_, options);
  if (!listing.ok()) return snap;
  for (const auto& f : listing->files) {
    snap.files[f.path] = {f.size, f.modified_ms, f.allocated_bytes};
  }
  snap.directories.insert(listing->directories.begin(), listing->directories.end());
  snap.used_bytes = listing->used_bytes;
  snap.entries = listing->entries;
  return snap;
}

bool VolumeGuard::Over(const Snapshot& now) const {
  return now.used_bytes > volume_.quota_bytes ||
         (volume_.max_files > 0 && now.entries > volume_.max_files);
}

void VolumeGuard::Settle() { settled_ = Take(); }

bool VolumeGuard::RollBackIfOver() {
  Snapshot now = Take();
  if (!Over(now)) return false;
  // New directories first, with everything in them: their blocks count too.
  for (const auto& path : now.directories) {
    if (!settled_.directories.count(path)) {
      (void)isolation::RemoveTreeEntry(dir_, path, volumes::kVolumeMaxDepth);
    }
  }
  for (const auto& [path, f] : now.files) {
    auto was = settled_.files.find(path);
    if (was == settled_.files.end() || was->second != f) {
      (void)isolation::RemoveTreeEntry(dir_, path, volumes::kVolumeMaxDepth);
    }
  }
  return true;
}

}  // namespace coderunner::sandboxes
