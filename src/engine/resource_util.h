// Pieces every engine resource client (containers, volumes) needs: safe
// path segments, label filters for list endpoints, string maps from answers.
#ifndef CODERUNNER_ENGINE_RESOURCE_UTIL_H_
#define CODERUNNER_ENGINE_RESOURCE_UTIL_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::engine {

// The query parameter "filters=<percent-encoded JSON>" selecting objects
// that carry every label in `labels` (an empty value matches the key
// alone). Both engines read the same {"label":["k=v",...]} shape. Pure.
std::string LabelFilterQuery(const std::map<std::string, std::string>& labels);

// Ids and names go into URL paths: anything but letters, digits, '-', '_'
// and '.' (1 to 128 of them) would be a bug or an injection. InvalidArgument
// naming `what` ("container id", "volume name") otherwise. Pure.
Status CheckPathSegment(std::string_view what, const std::string& segment);

// The string-valued members of a JSON object (labels, driver options);
// anything else is skipped. Pure; never throws.
std::map<std::string, std::string> StringMap(const nlohmann::json& j);

// RFC 3986 percent-encoding of everything but unreserved characters. Pure.
std::string PercentEncode(std::string_view in);

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_RESOURCE_UTIL_H_
