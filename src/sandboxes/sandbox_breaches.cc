// SandboxManager's side of the /output watch: a sandbox whose container the
// watch stopped, between calls, is settled at once rather than at its next
// call, so that what broke the bound does not stay on the host's disk.
#include <spdlog/spdlog.h>

#include "coderunner/sandboxes/sandbox_manager.h"

namespace coderunner::sandboxes {

void SandboxManager::OnOutputBreach(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    breached_.insert(id);
  }
  cv_.notify_all();
}

bool SandboxManager::SettleBreaches() {
  std::vector<std::pair<std::string, std::shared_ptr<Entry>>> due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& id : breached_) {
      auto it = entries_.find(id);
      due.emplace_back(id, it != entries_.end() ? it->second : nullptr);
    }
  }
  bool all = true;
  for (auto& [id, e] : due) {
    if (e != nullptr) {
      // A call holding it meets the dead container and settles it itself.
      std::unique_lock<std::timed_mutex> call(e->call_mu, std::try_to_lock);
      if (!call.owns_lock()) {
        all = false;
        continue;
      }
      if (e->live != nullptr) {
        std::string bound = e->live->SettleBreach();
        if (!bound.empty()) {
          spdlog::warn(
              "sandbox {}: its container was stopped between calls ({}); /output is "
              "back within its bounds and the next call starts a new container",
              id, bound);
        }
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    breached_.erase(id);
  }
  return all;
}

}  // namespace coderunner::sandboxes
