#include "coderunner/sandboxes/cell_records.h"

#include <string_view>

#include "coderunner/common/bounded_json.h"

namespace coderunner::sandboxes {
namespace {

// {"type":..,"data":{"text":".."}} is 2 deep; nothing the driver writes is deeper.
constexpr int kMaxRecordDepth = 2;

std::string StringOr(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Adds what one record line (the JSON after the prefix) says to `out`.
void ParseRecord(std::string_view text, CellRecords* out) {
  const nlohmann::json j = ParseBoundedJsonOrDiscarded(text, {.max_depth = kMaxRecordDepth});
  if (!j.is_object()) return;
  const std::string type = StringOr(j, "type");
  if (type == "error") {
    out->error = CellError{StringOr(j, "name"), StringOr(j, "value"), StringOr(j, "traceback")};
    return;
  }
  auto data = j.find("data");
  if (type != "result" || data == j.end() || !data->is_object()) return;
  RichResult r;
  auto main = j.find("is_main_result");
  r.is_main_result = main != j.end() && main->is_boolean() && main->get<bool>();
  for (const auto& [format, value] : data->items()) {
    if (value.is_string()) r.formats[format] = value.get<std::string>();
  }
  if (!r.formats.empty()) out->results.push_back(std::move(r));
}

}  // namespace

CellRecords TakeCellRecords(std::string* stdout_data) {
  CellRecords out;
  const std::string_view prefix(kCellRecordPrefix);
  const std::string_view all(*stdout_data);
  size_t at = all.find(prefix);
  if (at == std::string_view::npos) return out;
  std::string kept;
  kept.reserve(all.size());
  size_t from = 0;  // all[from, at) is output.
  while (at != std::string_view::npos) {
    const size_t eol = all.find('\n', at + prefix.size());
    if (eol == std::string_view::npos) break;  // Cut off by the cap: output.
    kept.append(all.substr(from, at - from));
    ParseRecord(all.substr(at + prefix.size(), eol - at - prefix.size()), &out);
    from = eol + 1;
    at = all.find(prefix, from);
  }
  kept.append(all.substr(from));
  *stdout_data = std::move(kept);
  return out;
}

}  // namespace coderunner::sandboxes
