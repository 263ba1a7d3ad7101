#include "volume_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

namespace coderunner::api {
namespace {

using nlohmann::json;

constexpr const char kInvalidRequest[] = "invalid_request";

bool ValidName(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

}  // namespace

StatusOr<volumes::VolumeRequest> ParseVolumeRequest(std::string_view body,
                                                    const JsonBounds& bounds) {
  CR_ASSIGN_OR_RETURN(json j, ParseBoundedJson(body, bounds));
  if (!j.is_object()) return InvalidArgumentError("body must be a JSON object", kInvalidRequest);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "name" && it.key() != "size_bytes") {
      return InvalidArgumentError(it.key() + ": unknown field (known: name, size_bytes)",
                                  kInvalidRequest);
    }
  }
  volumes::VolumeRequest request;
  if (auto it = j.find("name"); it != j.end() && !it->is_null()) {
    if (!it->is_string() || !ValidName(it->get<std::string>())) {
      return InvalidArgumentError("name: 1 to 64 letters, digits, '.', '-' or '_'",
                                  kInvalidRequest);
    }
    request.name = it->get<std::string>();
  }
  auto size = j.find("size_bytes");
  if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 1) {
    return InvalidArgumentError("size_bytes: required, a positive integer", kInvalidRequest);
  }
  request.size_bytes = size->get<int64_t>();
  return request;
}

}  // namespace coderunner::api
