#include "coderunner/common/bounded_json.h"

#include <string>
#include <utility>
#include <vector>

#include "coderunner/common/utf8.h"

namespace coderunner {
namespace {

using nlohmann::json;

// At most `max` bytes of `s`, cut on a character boundary and repaired.
std::string Excerpt(std::string_view s, size_t max) {
  if (s.size() <= max) return SanitizeUtf8(s);
  s = s.substr(0, max);
  return SanitizeUtf8(s.substr(0, CompleteUtf8Prefix(s))) + "...";
}

// nlohmann's message without its "[json.exception.parse_error.101] " tag,
// and with the token it quotes ("last read: '...'", possibly a whole long
// string) cut short.
std::string SyntaxMessage(std::string_view what) {
  if (size_t tag = what.find("] "); tag != std::string_view::npos) what.remove_prefix(tag + 2);
  constexpr std::string_view kLastRead = "last read: '";
  size_t at = what.find(kLastRead);
  if (at == std::string_view::npos) return Excerpt(what, 300);
  size_t start = at + kLastRead.size();
  size_t end = what.rfind('\'');
  if (end == std::string_view::npos || end < start) end = what.size();
  return Excerpt(what.substr(0, start), 300) + Excerpt(what.substr(start, end - start), 40) +
         Excerpt(what.substr(end), 200);
}

// A SAX handler that builds the value with an explicit stack of the open
// containers, refusing to open one past `max_depth`. The parser driving it
// is iterative too, so nothing here recurses on the input's nesting.
class BoundedDomBuilder {
 public:
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  explicit BoundedDomBuilder(int max_depth) : max_depth_(max_depth) {}

  bool null() { return Put(json(nullptr)) != nullptr; }
  bool boolean(bool v) { return Put(json(v)) != nullptr; }
  bool number_integer(number_integer_t v) { return Put(json(v)) != nullptr; }
  bool number_unsigned(number_unsigned_t v) { return Put(json(v)) != nullptr; }
  bool number_float(number_float_t v, const string_t&) { return Put(json(v)) != nullptr; }
  bool string(string_t& v) { return Put(json(std::move(v))) != nullptr; }
  bool binary(binary_t& v) { return Put(json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t) { return Open(json::object()); }
  bool start_array(std::size_t) { return Open(json::array()); }
  bool key(string_t& k) {
    slot_ = &(*open_.back())[k];  // A repeated key gets its last value.
    return true;
  }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool parse_error(std::size_t position, const std::string&, const json::exception& e) {
    error_ = InvalidArgumentError(
        "malformed JSON at byte " + std::to_string(position) + ": " + SyntaxMessage(e.what()),
        kInvalidJson);
    return false;
  }

  // Where the parser stopped: the error, or the value.
  const Status& error() const { return error_; }
  json& value() { return root_; }
  bool too_deep() const { return too_deep_; }

 private:
  // Stores `v` where the parser is (the root, the open array's end, or the
  // open object's current key) and returns where it went.
  json* Put(json&& v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& top = *open_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }

  bool Open(json&& container) {
    if (static_cast<int>(open_.size()) >= max_depth_) {
      too_deep_ = true;
      return false;
    }
    // Pointers into the open containers stay valid: an array only grows at
    // its end, which is the innermost open container's own place.
    open_.push_back(Put(std::move(container)));
    return true;
  }

  bool Close() {
    open_.pop_back();
    return true;
  }

  const int max_depth_;
  json root_;
  std::vector<json*> open_;  // The open containers, outermost first.
  json* slot_ = nullptr;     // The open object's value for the current key.
  bool too_deep_ = false;
  Status error_;
};

}  // namespace

StatusOr<json> ParseBoundedJson(std::string_view text, const JsonBounds& bounds) {
  if (static_cast<uint64_t>(text.size()) > static_cast<uint64_t>(bounds.max_bytes)) {
    return InvalidArgumentError("JSON of " + std::to_string(text.size()) +
                                    " bytes is larger than the limit of " +
                                    std::to_string(bounds.max_bytes) + " bytes",
                                kJsonTooLarge);
  }
  if (size_t bad = InvalidUtf8Offset(text); bad != std::string_view::npos) {
    return InvalidArgumentError(
        "JSON is not valid UTF-8: ill-formed sequence at byte " + std::to_string(bad),
        kInvalidJson);
  }
  // nlohmann's lexer takes a NUL byte for the end of the input and would
  // ignore whatever follows; JSON has no raw NUL anywhere (in a string it
  // must be escaped), so one is refused here.
  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return InvalidArgumentError("malformed JSON at byte " + std::to_string(nul) +
                                    ": a raw NUL byte (escape it as \\u0000 in a string)",
                                kInvalidJson);
  }
  const int max_depth = bounds.max_depth < 1 ? 1 : bounds.max_depth;
  BoundedDomBuilder builder(max_depth);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &builder, json::input_format_t::json,
                         /*strict=*/true);
  } catch (const json::exception& e) {
    // sax_parse reports through parse_error; this is only a safety net.
    return InvalidArgumentError(std::string("malformed JSON: ") + SyntaxMessage(e.what()),
                                kInvalidJson);
  }
  if (builder.too_deep()) {
    return InvalidArgumentError(
        "JSON nests deeper than " + std::to_string(max_depth) + " levels of arrays and objects",
        kJsonTooDeep);
  }
  if (!ok) {
    if (!builder.error().ok()) return builder.error();
    return InvalidArgumentError("malformed JSON", kInvalidJson);
  }
  return std::move(builder.value());
}

json ParseBoundedJsonOrDiscarded(std::string_view text, const JsonBounds& bounds) {
  auto parsed = ParseBoundedJson(text, bounds);
  return parsed.ok() ? std::move(*parsed) : json(json::value_t::discarded);
}

}  // namespace coderunner
