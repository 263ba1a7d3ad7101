// UTF-8 validation and repair for untrusted output.
#ifndef CODERUNNER_COMMON_UTF8_H_
#define CODERUNNER_COMMON_UTF8_H_

#include <string>
#include <string_view>

namespace coderunner {

// True if `s` is well-formed UTF-8 (no overlongs, surrogates or code points
// above U+10FFFF).
bool IsValidUtf8(std::string_view s);

// Offset of the first byte of the first ill-formed sequence in `s`, or
// std::string_view::npos if `s` is well-formed UTF-8. Pure; thread-safe.
size_t InvalidUtf8Offset(std::string_view s);

// Returns `s` with every ill-formed sequence replaced by U+FFFD (one per
// maximal invalid subpart, as the Unicode standard recommends). NUL bytes are
// valid UTF-8 and kept. Pure function; thread-safe.
std::string SanitizeUtf8(std::string_view s);

// Length of the longest prefix of `s` that does not end in the middle of a
// multi-byte sequence; used to cut a truncated stream at a clean boundary.
size_t CompleteUtf8Prefix(std::string_view s);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_UTF8_H_
