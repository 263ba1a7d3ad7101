// Label filters for the engine's list endpoints (containers, volumes).
#ifndef CODERUNNER_ENGINE_LABEL_FILTER_H_
#define CODERUNNER_ENGINE_LABEL_FILTER_H_

#include <map>
#include <string>
#include <string_view>

namespace coderunner::engine {

// The query parameter "filters=<percent-encoded JSON>" selecting objects
// that carry every label in `labels` (an empty value matches the key
// alone). Both engines read the same {"label":["k=v",...]} shape. Pure.
std::string LabelFilterQuery(const std::map<std::string, std::string>& labels);

// RFC 3986 percent-encoding of everything but unreserved characters. Pure.
std::string PercentEncode(std::string_view in);

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_LABEL_FILTER_H_
