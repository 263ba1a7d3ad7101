// LiveSandbox's /output: listed with cached hashes, opened file by file,
// and emptied when it breaks a bound a new container would refuse.
#include <errno.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "coderunner/common/sha256.h"
#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/safe_tree.h"
#include "coderunner/sandboxes/live_sandbox.h"

namespace coderunner::sandboxes {

bool LiveSandbox::ResetOutputIfOverBounds() {
  // A volume is never emptied: each call's writes that broke its quota are
  // rolled back instead (RollBackVolume).
  if (!own_output_) return false;
  const isolation::ArtifactCaps& caps = layout_.output_caps;
  isolation::TreeWalkOptions options;
  options.max_depth = caps.max_depth;
  options.max_entries = caps.max_files;
  auto listing = isolation::ListTree(output_dir_, options);
  // Counted as init counts (directories too): a tree only the guard
  // finds over a bound would stop every new container at its start.
  bool over = Breached() || !listing.ok() || isolation::BreaksOutputBounds(*listing, caps);
  if (!over) return false;
  (void)isolation::RemoveTree(output_dir_);
  (void)isolation::CreateOutputDir(layout_.output_root, spec_.id, uid_);
  hashes_.clear();
  return true;
}

std::vector<isolation::Artifact> LiveSandbox::ListOutput() {
  std::vector<isolation::Artifact> out;
  isolation::TreeWalkOptions options;
  options.max_depth = layout_.output_caps.max_depth;
  options.max_entries = layout_.output_caps.max_files;
  auto listing = isolation::ListTree(output_dir_, options);
  if (!listing.ok()) return out;
  std::map<std::string, HashEntry> next;
  for (const auto& f : listing->files) {
    auto cached = hashes_.find(f.path);
    if (cached != hashes_.end() && cached->second.size == f.size &&
        cached->second.modified_ms == f.modified_ms) {
      out.push_back({f.path, f.size, cached->second.sha256, f.allocated_bytes});
      next[f.path] = cached->second;
      continue;
    }
    auto fd = isolation::OpenTreeFile(output_dir_, f.path, layout_.output_caps.max_depth);
    if (!fd.ok()) continue;
    Sha256 sha;
    char buf[65536];
    int64_t size = 0;
    for (;;) {
      ssize_t n = read(fd->get(), buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      sha.Update(std::string_view(buf, static_cast<size_t>(n)));
      size += n;
    }
    std::string hex = sha.HexDigest();
    out.push_back({f.path, size, hex, f.allocated_bytes});
    next[f.path] = {size, f.modified_ms, hex};
  }
  hashes_.swap(next);
  return out;
}

void LiveSandbox::WatchOutput() {
  if (layout_.output_watch == nullptr || container_id_.empty()) return;
  isolation::OutputLimits limits{layout_.output_caps.max_total_bytes,
                                 layout_.output_caps.max_file_bytes, layout_.output_caps.max_files};
  if (!own_output_) limits = {spec_.volume.quota_bytes, 0, spec_.volume.max_files};
  engine::ContainerClient& containers = containers_;
  const std::string id = container_id_;
  const std::string sandbox = spec_.id;
  auto on_breach = layout_.on_output_breach;
  auto stop = [&containers, id, sandbox, on_breach](std::string_view bound) {
    spdlog::warn("sandbox {}: /output broke a bound ({}): stopping its container", sandbox, bound);
    Status killed = containers.Kill(id);
    if (!killed.ok()) spdlog::warn("sandbox {}: kill: {}", sandbox, killed.ToString());
    if (on_breach) on_breach(sandbox);
  };
  watch_ = layout_.output_watch->Watch(output_dir_, limits, id, stop);
}

std::string LiveSandbox::OutputBreach() const {
  return watch_ != nullptr ? watch_->violation() : std::string();
}

bool LiveSandbox::Breached() const { return !removed_breach_.empty() || !OutputBreach().empty(); }

std::string LiveSandbox::SettleBreach() {
  std::string bound = OutputBreach();
  if (bound.empty()) return bound;
  RemoveContainer();
  if (ResetOutputIfOverBounds()) output_reset_ = true;
  (void)RollBackVolume();
  removed_breach_.clear();
  return bound;
}

StatusOr<isolation::UniqueFd> LiveSandbox::OpenOutputFile(const std::string& path) {
  return isolation::OpenTreeFile(output_dir_, path, layout_.output_caps.max_depth);
}

}  // namespace coderunner::sandboxes
