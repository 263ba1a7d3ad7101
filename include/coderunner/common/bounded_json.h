// BoundedJson: the one parser for JSON that arrives as untrusted bytes:
// request bodies, the model's replies, what a job prints, the service's
// answers as the CLI reads them.
//
// nlohmann's parser itself is iterative, but copying, comparing or dumping
// the value it builds recurses once per level of nesting: a 600 KB body
// nesting arrays 300,000 deep parses fine and then overflows the stack of
// whatever copies it, killing the process. This parser refuses such input
// while it reads it (before any deep value exists), and refuses input that
// is too large or not UTF-8. A value it returns is at most `max_depth`
// deep, so every recursive operation on it is bounded.
#ifndef CODERUNNER_COMMON_BOUNDED_JSON_H_
#define CODERUNNER_COMMON_BOUNDED_JSON_H_

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner {

// Reasons (Status::reason(), the API's error.code) of ParseBoundedJson's
// errors.
inline constexpr const char kInvalidJson[] = "invalid_json";     // Not JSON, or not UTF-8.
inline constexpr const char kJsonTooDeep[] = "json_too_deep";    // Nested past max_depth.
inline constexpr const char kJsonTooLarge[] = "json_too_large";  // Longer than max_bytes.

// Default nesting bound (server.max_json_depth). No request, reply or record
// of the service comes near it, and a value this deep is cheap to copy and
// dump on any thread's stack.
inline constexpr int kDefaultMaxJsonDepth = 64;

struct JsonBounds {
  // Most arrays and objects open at once: `1` is depth 0, `[]` and `{}`
  // depth 1, `[{"a":[]}]` depth 3. Count; below 1 counts as 1. Default 64.
  int max_depth = kDefaultMaxJsonDepth;
  // Longest input. Bytes; default unbounded (callers whose bytes were not
  // bounded where they entered set it).
  int64_t max_bytes = std::numeric_limits<int64_t>::max();
};

// Parses `text` as one JSON value (RFC 8259: UTF-8, no comments, only
// whitespace after the value; a leading UTF-8 byte order mark is skipped),
// without recursion. Duplicate keys: the last one wins.
// Errors, all InvalidArgument, checked in this order so that nothing is
// parsed that is refused anyway:
//   kJsonTooLarge  `text` is longer than bounds.max_bytes;
//   kInvalidJson   `text` is not UTF-8 (the message names the byte offset),
//                  holds a raw NUL byte (nlohmann would stop reading there),
//                  or is not one JSON value (offset and what was expected);
//   kJsonTooDeep   an array or object opens past bounds.max_depth (parsing
//                  stops there; the message names the bound).
// Messages quote at most a short, UTF-8-repaired excerpt of the input.
// Cost: linear in text.size(); memory about that of the value. Pure;
// thread-safe.
StatusOr<nlohmann::json> ParseBoundedJson(std::string_view text, const JsonBounds& bounds);

// ParseBoundedJson for callers that only need to know whether they got a
// value: the value, or a discarded one (is_discarded(), as nlohmann's
// parse(..., allow_exceptions=false) gives) for anything it refuses. Pure;
// thread-safe.
nlohmann::json ParseBoundedJsonOrDiscarded(std::string_view text, const JsonBounds& bounds);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_BOUNDED_JSON_H_
