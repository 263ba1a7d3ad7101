#include "coderunner/store/node_registry.h"

#include <string>
#include <utility>

namespace coderunner::store {
namespace {

Status InvalidNode(const std::string& why) {
  return InvalidArgumentError("node: " + why, kReasonInvalidNode);
}

}  // namespace

Status CheckNodeInfo(const NodeInfo& node) {
  if (node.id.empty() || node.id.size() > kMaxNodeIdBytes) {
    return InvalidNode("id must be 1.." + std::to_string(kMaxNodeIdBytes) + " bytes");
  }
  const std::pair<const char*, const std::string*> texts[] = {
      {"advertised_url", &node.advertised_url},
      {"engine", &node.engine},
      {"runtime", &node.runtime},
      {"version", &node.version}};
  for (const auto& [name, value] : texts) {
    if (value->size() > kMaxNodeTextBytes) {
      return InvalidNode(std::string(name) + " is over " + std::to_string(kMaxNodeTextBytes) +
                         " bytes");
    }
  }
  if (node.capacity < 0 || node.running < 0) {
    return InvalidNode("capacity and running must be >= 0");
  }
  return OkStatus();
}

}  // namespace coderunner::store
