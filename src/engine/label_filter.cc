#include "coderunner/engine/label_filter.h"

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

std::string LabelFilterQuery(const std::map<std::string, std::string>& labels) {
  nlohmann::json filter = nlohmann::json::array();
  for (const auto& [k, v] : labels) filter.push_back(v.empty() ? k : k + "=" + v);
  nlohmann::json filters = {{"label", filter}};
  return "filters=" + PercentEncode(filters.dump());
}

}  // namespace coderunner::engine
