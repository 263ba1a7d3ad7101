#include "coderunner/common/utf8.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner {
namespace {

using namespace std::string_literals;

const std::string kFffd = "\xEF\xBF\xBD";
std::string Fffd(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += kFffd;
  return s;
}

struct Utf8Case {
  const char* name;
  std::string input;
  bool valid;
  std::string sanitized;  // Expected SanitizeUtf8 output.
};

std::vector<Utf8Case> Utf8Cases() {
  return {
      {"empty", "", true, ""},
      {"ascii", "hello\n", true, "hello\n"},
      {"nul kept", "a\0b"s, true, "a\0b"s},
      {"two byte", "\xC3\xA9", true, "\xC3\xA9"},
      {"three byte", "\xE2\x82\xAC", true, "\xE2\x82\xAC"},
      {"four byte", "\xF0\x9F\x98\x80", true, "\xF0\x9F\x98\x80"},
      {"max code point U+10FFFF", "\xF4\x8F\xBF\xBF", true, "\xF4\x8F\xBF\xBF"},
      {"U+FFFD itself", kFffd, true, kFffd},
      {"last before surrogates U+D7FF", "\xED\x9F\xBF", true, "\xED\x9F\xBF"},
      {"first after surrogates U+E000", "\xEE\x80\x80", true, "\xEE\x80\x80"},
      // Overlongs.
      {"overlong 2-byte NUL C0 80", "\xC0\x80", false, Fffd(2)},
      {"overlong 2-byte slash C1 AF", "\xC1\xAF", false, Fffd(2)},
      {"overlong 3-byte E0 80 AF", "\xE0\x80\xAF", false, Fffd(3)},
      {"overlong 3-byte E0 9F BF", "\xE0\x9F\xBF", false, Fffd(3)},
      {"overlong 4-byte F0 80 80 AF", "\xF0\x80\x80\xAF", false, Fffd(4)},
      {"overlong 4-byte F0 8F BF BF", "\xF0\x8F\xBF\xBF", false, Fffd(4)},
      // Surrogates (UTF-16 halves are not characters).
      {"high surrogate ED A0 80", "\xED\xA0\x80", false, Fffd(3)},
      {"low surrogate ED BF BF", "\xED\xBF\xBF", false, Fffd(3)},
      {"surrogate pair CESU", "\xED\xA0\xBD\xED\xB8\x80", false, Fffd(6)},
      // Truncated sequences: one U+FFFD per maximal subpart.
      {"truncated 2-byte at end", "a\xC3", false, "a" + kFffd},
      {"truncated 3-byte at end", "a\xE2\x82", false, "a" + kFffd},
      {"truncated 4-byte at end", "a\xF0\x9F\x98", false, "a" + kFffd},
      {"truncated 3-byte then ascii",
       "\xE2\x82"
       "A",
       false, kFffd + "A"},
      {"truncated 4-byte then ascii",
       "\xF0\x9F"
       "A",
       false, kFffd + "A"},
      {"lone continuation", "\x80", false, kFffd},
      {"two lone continuations", "\x80\xBF", false, Fffd(2)},
      {"FE and FF", "\xFE\xFF", false, Fffd(2)},
      // Above U+10FFFF.
      {"F4 90 80 80 (U+110000)", "\xF4\x90\x80\x80", false, Fffd(4)},
      {"F5 80 80 80", "\xF5\x80\x80\x80", false, Fffd(4)},
      {"F7 BF BF BF (U+1FFFFF)", "\xF7\xBF\xBF\xBF", false, Fffd(4)},
      {"5-byte form F8 88 80 80 80", "\xF8\x88\x80\x80\x80", false, Fffd(5)},
      {"valid around invalid", "ok\xFFok", false, "ok" + kFffd + "ok"},
      // The Unicode standard's own example (Table 3-8).
      {"unicode table 3-8", "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", false,
       "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d"},
  };
}

TEST(Utf8Test, IsValidUtf8Table) {
  for (const auto& c : Utf8Cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(IsValidUtf8(c.input), c.valid);
  }
}

TEST(Utf8Test, InvalidUtf8OffsetNamesTheFirstIllFormedByte) {
  struct Case {
    std::string input;
    size_t offset;
  };
  const Case cases[] = {
      {"", std::string_view::npos},
      {"ok \xC3\xA9", std::string_view::npos},
      {"\xFF", 0},
      {"ab\xC0\x80", 2},
      {"\xE2\x82\xAC\xED\xA0\x80", 3},  // Euro sign, then an encoded surrogate.
      {"abc\xE2\x82", 3},               // Truncated at the end.
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(InvalidUtf8Offset(c.input), c.offset);
  }
  for (const auto& c : Utf8Cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(InvalidUtf8Offset(c.input) == std::string_view::npos, c.valid);
  }
}

TEST(Utf8Test, SanitizeUtf8ReplacesEachMaximalSubpartWithOneFffd) {
  for (const auto& c : Utf8Cases()) {
    SCOPED_TRACE(c.name);
    std::string out = SanitizeUtf8(c.input);
    EXPECT_EQ(out, c.sanitized);
    EXPECT_TRUE(IsValidUtf8(out));
  }
}

TEST(Utf8Test, SanitizeUtf8IsIdentityOnValidInput) {
  for (const auto& c : Utf8Cases()) {
    if (!c.valid) continue;
    SCOPED_TRACE(c.name);
    EXPECT_EQ(SanitizeUtf8(c.input), c.input);
  }
}

TEST(Utf8Test, SanitizeUtf8OutputIsAlwaysValidForEveryByteValue) {
  for (int b = 0; b < 256; ++b) {
    std::string s = "x" + std::string(1, static_cast<char>(b)) + "y";
    SCOPED_TRACE(b);
    EXPECT_TRUE(IsValidUtf8(SanitizeUtf8(s)));
  }
}

TEST(Utf8Test, CompleteUtf8PrefixTable) {
  struct Case {
    const char* name;
    std::string input;
    size_t want;
  };
  const std::vector<Case> cases = {
      {"empty", "", 0},
      {"ascii", "abc", 3},
      {"complete 2-byte", "a\xC3\xA9", 3},
      {"cut 2-byte", "a\xC3", 1},
      {"complete 3-byte", "a\xE2\x82\xAC", 4},
      {"cut 3-byte after 1", "a\xE2", 1},
      {"cut 3-byte after 2", "a\xE2\x82", 1},
      {"complete 4-byte", "a\xF0\x9F\x98\x80", 5},
      {"cut 4-byte after 1", "a\xF0", 1},
      {"cut 4-byte after 2", "a\xF0\x9F", 1},
      {"cut 4-byte after 3", "a\xF0\x9F\x98", 1},
      {"only a cut sequence", "\xF0\x9F\x98", 0},
      {"ends in NUL", "a\0"s, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(CompleteUtf8Prefix(c.input), c.want);
  }
}

TEST(Utf8Test, CompleteUtf8PrefixCutsEveryPrefixOfValidTextAtACharacterBoundary) {
  const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z";
  for (size_t n = 0; n <= text.size(); ++n) {
    SCOPED_TRACE(n);
    std::string_view prefix(text.data(), n);
    size_t keep = CompleteUtf8Prefix(prefix);
    EXPECT_LE(keep, n);
    EXPECT_GE(keep + 3, n);
    EXPECT_TRUE(IsValidUtf8(prefix.substr(0, keep)));
  }
}

}  // namespace
}  // namespace coderunner
