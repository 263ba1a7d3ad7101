#include "coderunner/common/utf8.h"

namespace coderunner {
namespace {

// Length of the valid sequence starting at s[i], or 0 if s[i] starts an
// ill-formed one. Follows Table 3-7 of the Unicode standard.
size_t ValidSequenceLength(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  size_t left = s.size() - i;
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return k < left && b(k) >= lo && b(k) <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0, 0xBF) && cont(2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90, 0xBF) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

// How many bytes the maximal invalid subpart at s[i] spans (at least 1).
size_t InvalidSubpartLength(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  size_t need = c >= 0xF0 && c <= 0xF4   ? 4
                : c >= 0xE0 && c <= 0xEF ? 3
                : c >= 0xC2 && c <= 0xDF ? 2
                                         : 1;
  if (need == 1) return 1;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  size_t n = 1;
  if (i + n < s.size() && b(n) >= lo && b(n) <= hi) {
    ++n;
    while (n < need && i + n < s.size() && b(n) >= 0x80 && b(n) <= 0xBF) ++n;
  }
  return n;
}

}  // namespace

bool IsValidUtf8(std::string_view s) { return InvalidUtf8Offset(s) == std::string_view::npos; }

size_t InvalidUtf8Offset(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = ValidSequenceLength(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = ValidSequenceLength(s, i);
    if (n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      i += InvalidSubpartLength(s, i);
    }
  }
  return out;
}

size_t CompleteUtf8Prefix(std::string_view s) {
  // Look back at most 3 bytes for the start of the last sequence.
  size_t n = s.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    unsigned char c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // Continuation byte; keep looking.
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

}  // namespace coderunner
