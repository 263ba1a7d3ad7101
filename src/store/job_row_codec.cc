#include "job_row_codec.h"

#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "store_errors.h"

namespace coderunner::store {
StatusOr<std::string> TransitionsToJson(const std::vector<store::Transition>& transitions) {
  try {
    nlohmann::json array = nlohmann::json::array();
    for (const store::Transition& t : transitions) {
      array.push_back(
          {{"status", std::string(store::JobStatusName(t.status))}, {"at_ms", t.at_ms}});
    }
    return array.dump();
  } catch (const std::exception& e) {
    return InternalError(std::string("serializing transitions: ") + e.what(), kReasonStoreError);
  }
}

StatusOr<std::vector<store::Transition>> ParseTransitions(std::string_view text,
                                                          const std::string& id) {
  auto corrupt = [&id](std::string_view why) {
    return CorruptError("job " + id + ": stored transitions " + std::string(why));
  };
  try {
    nlohmann::json array = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (array.is_discarded()) return corrupt("are not JSON");
    if (!array.is_array()) return corrupt("are not an array");
    std::vector<store::Transition> transitions;
    transitions.reserve(array.size());
    for (const nlohmann::json& entry : array) {
      if (!entry.is_object()) return corrupt("have a non-object entry");
      auto status = entry.find("status");
      auto at_ms = entry.find("at_ms");
      if (status == entry.end() || !status->is_string() || at_ms == entry.end() ||
          !at_ms->is_number_integer()) {
        return corrupt("have an entry without status or at_ms");
      }
      std::optional<JobStatus> parsed =
          store::ParseJobStatus(status->get_ref<const std::string&>());
      if (!parsed) return corrupt("have an unknown status");
      transitions.push_back({*parsed, at_ms->get<int64_t>()});
    }
    return transitions;
  } catch (const std::exception& e) {
    return corrupt(e.what());
  }
}

Status UnknownStatusError(const std::string& id, const std::string& status) {
  return CorruptError("job " + id + " has unknown status '" + status + "'");
}

}  // namespace coderunner::store
