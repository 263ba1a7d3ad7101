#include "layer_budget.h"

#include <dirent.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <chrono>
#include <map>
#include <mutex>

#include "coderunner/isolation/workspace.h"
#include "install_process.h"

namespace coderunner::packages {

struct LayerBudget::State {
  struct Layer {
    int64_t bytes = 0;
    int64_t last_use = 0;  // A tick of `clock`: larger is later.
    int holds = 0;
  };
  std::string dir;
  int64_t max_bytes = 0;
  mutable std::mutex mu;
  std::map<std::string, Layer> layers;
  int64_t used = 0;
  int64_t clock = 0;

  // Removes the unheld layer used least recently; false if none is. Requires mu.
  bool EvictOne() {
    auto victim = layers.end();
    for (auto it = layers.begin(); it != layers.end(); ++it) {
      if (it->second.holds == 0 &&
          (victim == layers.end() || it->second.last_use < victim->second.last_use)) {
        victim = it;
      }
    }
    if (victim == layers.end()) return false;
    const std::string name = victim->first;
    used -= victim->second.bytes;
    layers.erase(victim);
    // Gone from the map first: no new hold can take it. Nothing links it.
    Status removed = isolation::RemoveTree(dir + "/" + name);
    if (!removed.ok()) spdlog::warn("packages: remove layer {}: {}", name, removed.ToString());
    spdlog::info("packages: removed layer {} to make room ({} bytes held by layers)",
                 name.substr(0, 12), used);
    return true;
  }
};

LayerBudget::LayerBudget(std::string layers_dir, int64_t max_bytes)
    : state_(std::make_shared<State>()) {
  state_->dir = std::move(layers_dir);
  state_->max_bytes = max_bytes;
  std::multimap<int64_t, std::string> by_age;  // mtime -> name.
  if (DIR* d = opendir(state_->dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      struct stat st;
      if (name == "." || name == ".." || lstat((state_->dir + "/" + name).c_str(), &st) != 0 ||
          !S_ISDIR(st.st_mode)) {
        continue;
      }
      by_age.emplace(st.st_mtim.tv_sec, name);
    }
    closedir(d);
  }
  for (const auto& [mtime, name] : by_age) {
    const int64_t bytes = TreeBytes(state_->dir + "/" + name);
    state_->layers[name] = {bytes, ++state_->clock, 0};
    state_->used += bytes;
  }
}

std::shared_ptr<void> LayerBudget::Hold(const std::string& name) {
  std::lock_guard lock(state_->mu);
  return HoldLocked(state_, name);
}

std::shared_ptr<void> LayerBudget::HoldLocked(const std::shared_ptr<State>& state,
                                              const std::string& name) {
  auto it = state->layers.find(name);
  if (it == state->layers.end()) return nullptr;
  ++it->second.holds;
  it->second.last_use = ++state->clock;
  // Points at the state (never null); releasing it deletes nothing.
  return std::shared_ptr<void>(state.get(), [state, name](void*) {
    std::lock_guard lock(state->mu);
    auto it = state->layers.find(name);
    if (it != state->layers.end() && it->second.holds > 0) --it->second.holds;
  });
}

Status LayerBudget::MakeRoom() {
  std::lock_guard lock(state_->mu);
  while (state_->used >= state_->max_bytes) {
    if (!state_->EvictOne()) {
      return ResourceExhaustedError(
          "the service's package layers in use take " + std::to_string(state_->used) +
              " bytes, its bound (packages.max_layers_bytes); try again when they are free",
          kReasonPackageStoreFull);
    }
  }
  return OkStatus();
}

std::shared_ptr<void> LayerBudget::Add(const std::string& name) {
  const int64_t bytes = TreeBytes(state_->dir + "/" + name);
  std::lock_guard lock(state_->mu);
  auto [it, fresh] = state_->layers.try_emplace(name);
  if (fresh) {
    it->second.bytes = bytes;
    state_->used += bytes;
  }
  std::shared_ptr<void> hold = HoldLocked(state_, name);
  while (state_->used > state_->max_bytes && state_->EvictOne()) {
  }
  return hold;
}

int64_t LayerBudget::used_bytes() const {
  std::lock_guard lock(state_->mu);
  return state_->used;
}

int LayerBudget::layers() const {
  std::lock_guard lock(state_->mu);
  return static_cast<int>(state_->layers.size());
}

}  // namespace coderunner::packages
