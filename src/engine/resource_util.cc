#include "resource_util.h"

#include <nlohmann/json.hpp>

namespace coderunner::engine {

std::string PercentEncode(std::string_view in) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : in) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

Status CheckPathSegment(std::string_view what, const std::string& segment) {
  bool ok = !segment.empty() && segment.size() <= 128;
  for (char c : segment) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '_' || c == '.');
  }
  if (ok) return OkStatus();
  return InvalidArgumentError("bad " + std::string(what) + ": '" + segment.substr(0, 128) + "'");
}

std::map<std::string, std::string> StringMap(const nlohmann::json& j) {
  std::map<std::string, std::string> out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

std::string LabelFilterQuery(const std::map<std::string, std::string>& labels) {
  nlohmann::json filter = nlohmann::json::array();
  for (const auto& [k, v] : labels) filter.push_back(v.empty() ? k : k + "=" + v);
  nlohmann::json filters = {{"label", filter}};
  return "filters=" + PercentEncode(filters.dump());
}

}  // namespace coderunner::engine
