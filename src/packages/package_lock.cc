// The lock as results record it, and as a replay reads it back.
#include <algorithm>

#include "coderunner/common/sha256.h"
#include "coderunner/packages/package_installer.h"

namespace coderunner::packages {

nlohmann::json LockToJson(const std::vector<LockedPackage>& lock) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : lock) {
    out.push_back({{"name", p.name}, {"version", p.version}, {"sha256", p.sha256}});
  }
  return out;
}

StatusOr<std::vector<LockedPackage>> ParseLock(const nlohmann::json& lock) {
  std::vector<LockedPackage> out;
  if (lock.is_null()) return out;
  if (!lock.is_array()) return InvalidArgumentError("a lock is an array", kReasonInvalidPackage);
  for (const auto& entry : lock) {
    if (!entry.is_object())
      return InvalidArgumentError("a lock entry is an object", kReasonInvalidPackage);
    const std::string name = entry.value("name", "");
    const std::string version = entry.value("version", "");
    const std::string sha = entry.value("sha256", "");
    CR_ASSIGN_OR_RETURN(Requirement req, ParseRequirement(name + "==" + version));
    if (!IsSha256Hex(sha)) {
      return InvalidArgumentError("lock entry " + req.name + ": sha256 is not 64 hex digits",
                                  kReasonInvalidPackage);
    }
    out.push_back({req.name, version, sha});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace coderunner::packages
