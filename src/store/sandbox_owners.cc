#include "coderunner/store/sandbox_owners.h"

#include <string>
#include <utility>

namespace coderunner::store {

Status CheckSandboxPlacement(const SandboxPlacement& placement) {
  const std::pair<const char*, const std::string*> fields[] = {
      {"id", &placement.id}, {"tenant", &placement.tenant}, {"node", &placement.node}};
  for (const auto& [name, value] : fields) {
    if (value->empty() || value->size() > kMaxPlacementFieldBytes) {
      return InvalidArgumentError("sandbox placement: " + std::string(name) + " must be 1.." +
                                      std::to_string(kMaxPlacementFieldBytes) + " bytes",
                                  kReasonInvalidPlacement);
    }
  }
  return OkStatus();
}

}  // namespace coderunner::store
