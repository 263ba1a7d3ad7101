// LayerBudget: what packages.dir/layers may hold on the host's disk
// (packages.max_layers_bytes). It knows each layer's bytes, its last use,
// and how many jobs and sandboxes hold it; room is made by removing the
// layers used least recently that nothing holds (an install makes one again
// when asked). Without it a tenant could fill the disk one set at a time
// (a sandbox's `pip install a==1`, `a==2`, ...). Private to src/packages.
#ifndef CODERUNNER_SRC_PACKAGES_LAYER_BUDGET_H_
#define CODERUNNER_SRC_PACKAGES_LAYER_BUDGET_H_

#include <cstdint>
#include <memory>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/packages/package_installer.h"

namespace coderunner::packages {

class LayerBudget {
 public:
  // Takes stock of `layers_dir`: each layer measured (TreeBytes), its last
  // use its modification time. Layers are removed from `layers_dir` only.
  LayerBudget(std::string layers_dir, int64_t max_bytes);

  // A hold on layer `name`, used now: it is not removed while the handle
  // (or a copy) lives. Null when the layer is not in the store (never made,
  // or removed to make room): the caller installs it again.
  std::shared_ptr<void> Hold(const std::string& name);
  // Before an install: when the store is at its bound, removes unheld
  // layers, least recently used first, until it is under. ResourceExhausted
  // "package_store_full" if held layers alone fill it.
  Status MakeRoom();
  // After layer `name` was committed: counts its bytes and holds it (as
  // Hold), then removes unheld layers, least recently used first, while the
  // store is over its bound. The store passes its bound by one install at
  // most (packages.max_installed_bytes).
  std::shared_ptr<void> Add(const std::string& name);

  int64_t used_bytes() const;
  int layers() const;

 private:
  struct State;
  // Hold, with state->mu held.
  static std::shared_ptr<void> HoldLocked(const std::shared_ptr<State>& state,
                                          const std::string& name);
  std::shared_ptr<State> state_;  // Shared with every hold's release.
};

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_LAYER_BUDGET_H_
