#include "coderunner/isolation/mechanism.h"

namespace coderunner::isolation {

Status PolicyMismatch(std::string_view mechanism, std::string_view field,
                      const nlohmann::json& want, const nlohmann::json& got) {
  return FailedPreconditionError(std::string(mechanism) +
                                     " policy not applied: " + std::string(field) + " is " +
                                     got.dump() + ", want " + want.dump(),
                                 kReasonPolicyNotApplied);
}

const nlohmann::json& InspectField(const nlohmann::json& inspect, const char* section,
                                   const char* field) {
  static const nlohmann::json kNull;
  if (!inspect.is_object()) return kNull;
  auto s = inspect.find(section);
  if (s == inspect.end() || !s->is_object()) return kNull;
  auto f = s->find(field);
  return f == s->end() ? kNull : *f;
}

}  // namespace coderunner::isolation
