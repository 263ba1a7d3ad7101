#include "coderunner/common/bounded_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner {
namespace {

using nlohmann::json;
using namespace std::string_literals;

std::string Repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// `depth` arrays, one inside the other.
std::string DeepArrays(int depth) { return Repeat("[", depth) + Repeat("]", depth); }
// `depth` objects {"a":{"a":...1}}.
std::string DeepObjects(int depth) { return Repeat("{\"a\":", depth) + "1" + Repeat("}", depth); }

JsonBounds Depth(int max_depth) {
  JsonBounds b;
  b.max_depth = max_depth;
  return b;
}

TEST(BoundedJsonTest, AcceptsJsonWithinTheBoundsAsNlohmannReadsIt) {
  struct Case {
    const char* name;
    std::string text;
    int max_depth;
  };
  const std::vector<Case> cases = {
      {"integer", "1", 1},
      {"negative and float", "[-1, 2.5e3, 18446744073709551615]", 1},
      {"literals", "[true, false, null]", 1},
      {"string with escapes", R"("a\"b\\c\n\u00e9\ud83d\ude00")", 1},
      {"raw UTF-8 in a string", "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"", 1},
      {"NUL escaped", R"("a\u0000b")", 1},
      {"surrounding whitespace", " \t\r\n{\"a\" : [ 1 , 2 ] }\n ", 2},
      {"byte order mark", "\xEF\xBB\xBF{\"a\":1}", 1},
      {"empty containers", R"({"a":[],"b":{}})", 2},
      {"arrays exactly at the bound", DeepArrays(5), 5},
      {"objects exactly at the bound", DeepObjects(5), 5},
      {"mixed at the bound", R"([{"a":[{"b":1}]}])", 4},
      {"a request body", R"J({"language":"python","code":"print(1)","limits":{"pids":3}})J", 64},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = ParseBoundedJson(c.text, Depth(c.max_depth));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, json::parse(c.text));
  }
}

TEST(BoundedJsonTest, RefusesWhatIsNotJsonAsInvalidJson) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;  // A part of the message.
  };
  const std::vector<Case> cases = {
      {"empty", "", "malformed JSON at byte"},
      {"only whitespace", "  \n", "malformed JSON"},
      {"unclosed array", "[1, 2", "malformed JSON"},
      {"trailing comma", "[1,]", "malformed JSON"},
      {"key without value", R"({"a"})", "malformed JSON"},
      {"bare word", "tru", "malformed JSON"},
      {"two values", "1 2", "malformed JSON"},
      {"comment", "// c\n1", "malformed JSON"},
      {"single quotes", "{'a':1}", "malformed JSON"},
      {"raw control character in a string", "\"a\nb\"", "malformed JSON"},
      {"lone high surrogate escape", R"("\ud800")", "malformed JSON"},
      {"lone low surrogate escape", R"("\udc00")", "malformed JSON"},
      {"NaN", "NaN", "malformed JSON"},
      // nlohmann alone would stop at the NUL and accept the value before it.
      {"NUL after a value", "7\0garbage"s, "malformed JSON at byte 1: a raw NUL byte"},
      {"NUL after an object", "{\"a\":1}\0"s, "a raw NUL byte"},
      {"raw NUL in a string", "\"a\0b\""s, "a raw NUL byte"},
      {"unclosed deep arrays within the bound", "[[[", "malformed JSON"},
      {"invalid byte in a string", "\"a\xFF\"", "not valid UTF-8: ill-formed sequence at byte 2"},
      {"invalid byte outside strings", "[1,\xFE]",
       "not valid UTF-8: ill-formed sequence at byte 3"},
      {"overlong NUL", "\"\xC0\x80\"", "not valid UTF-8"},
      {"encoded surrogate", "\"\xED\xA0\x80\"", "not valid UTF-8"},
      {"truncated sequence", "\"\xE2\x82\"", "not valid UTF-8"},
      {"above U+10FFFF", "\"\xF4\x90\x80\x80\"", "not valid UTF-8"},
      {"Latin-1 text", "{\"name\":\"caf\xE9\"}", "not valid UTF-8: ill-formed sequence at byte 12"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = ParseBoundedJson(c.text, JsonBounds{});
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().reason(), kInvalidJson);
    EXPECT_NE(got.status().message().find(c.message), std::string::npos) << got.status().message();
  }
}

TEST(BoundedJsonTest, RefusesNestingPastTheBoundAsJsonTooDeep) {
  struct Case {
    const char* name;
    std::string text;
    int max_depth;
  };
  const std::vector<Case> cases = {
      {"one array too many", DeepArrays(6), 5},
      {"one object too many", DeepObjects(6), 5},
      {"mixed", R"([{"a":[{"b":1}]}])", 3},
      {"deep inside a wide value", "[1,2,3,{\"a\":[[[0]]]}]", 4},
      {"a scalar-only bound", "[]", 0},  // Below 1 counts as 1: [] fits, [[]] does not.
      {"300,000 arrays (the attack)", DeepArrays(300000), 64},
      {"300,000 objects", DeepObjects(300000), 64},
      {"300,000 arrays in a batch body", "{\"jobs\":[" + DeepArrays(300000) + "]}", 64},
      {"300,000 unclosed arrays", Repeat("[", 300000), 64},
      {"deep, then malformed", DeepArrays(100) + "x", 64},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = ParseBoundedJson(c.text, Depth(c.max_depth));
    if (c.max_depth == 0) {
      ASSERT_TRUE(got.ok());
      EXPECT_EQ(ParseBoundedJson("[[]]", Depth(0)).status().reason(), kJsonTooDeep);
      continue;
    }
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().reason(), kJsonTooDeep) << got.status().message();
    EXPECT_NE(got.status().message().find("deeper than " + std::to_string(c.max_depth)),
              std::string::npos)
        << got.status().message();
  }
}

TEST(BoundedJsonTest, RefusesInputOverTheSizeBoundBeforeReadingIt) {
  struct Case {
    const char* name;
    std::string text;
    int64_t max_bytes;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"at the bound", "[1,2]", 5, true},
      {"one byte over", "[1,2] ", 5, false},
      {"over and malformed too", "[[[[[[", 5, false},
      {"over and not UTF-8 too", "\xFF\xFF\xFF\xFF\xFF\xFF", 5, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    JsonBounds b;
    b.max_bytes = c.max_bytes;
    auto got = ParseBoundedJson(c.text, b);
    ASSERT_EQ(got.ok(), c.ok) << got.status().ToString();
    if (!c.ok) {
      EXPECT_EQ(got.status().reason(), kJsonTooLarge);
      EXPECT_NE(got.status().message().find("limit of 5 bytes"), std::string::npos);
    }
  }
}

TEST(BoundedJsonTest, WideValuesWithinTheBoundsParse) {
  std::string array = "[" + Repeat("0,", 249999) + "0]";
  std::string object = "{";
  for (int i = 0; i < 100000; ++i) object += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  object += "}";
  auto a = ParseBoundedJson(array, JsonBounds{});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->size(), 250000u);
  auto o = ParseBoundedJson(object, JsonBounds{});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->size(), 100000u);
}

TEST(BoundedJsonTest, DuplicateKeysKeepTheLastValue) {
  auto got = ParseBoundedJson(R"({"a":1,"b":[2],"a":{"c":3}})", JsonBounds{});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, json::parse(R"({"a":{"c":3},"b":[2]})"));
}

TEST(BoundedJsonTest, AValueAtTheBoundCopiesAndDumps) {
  // What a handler does with an accepted body must stay cheap on its stack.
  auto got = ParseBoundedJson(DeepArrays(kDefaultMaxJsonDepth), JsonBounds{});
  ASSERT_TRUE(got.ok());
  json copy = *got;
  EXPECT_EQ(copy.dump(), DeepArrays(kDefaultMaxJsonDepth));
}

TEST(BoundedJsonTest, MessagesQuoteOnlyAShortExcerptOfTheInput) {
  // A lexer error at the end of a long string: nlohmann quotes the whole
  // string read so far; the message must not echo it.
  std::string long_string = "\"" + std::string(100000, 'a') + "\\q\"";
  auto got = ParseBoundedJson(long_string, JsonBounds{});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().reason(), kInvalidJson);
  EXPECT_LT(got.status().message().size(), 700u) << got.status().message().substr(0, 800);
  EXPECT_EQ(got.status().message().find("[json.exception"), std::string::npos);
}

TEST(BoundedJsonTest, OrDiscardedGivesTheValueOrADiscardedOne) {
  struct Case {
    const char* name;
    std::string text;
    bool discarded;
  };
  const std::vector<Case> cases = {
      {"object", R"({"a":[1]})", false},
      {"malformed", "{", true},
      {"not UTF-8", "\"\xFF\"", true},
      {"too deep", DeepArrays(65), true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    json got = ParseBoundedJsonOrDiscarded(c.text, JsonBounds{});
    EXPECT_EQ(got.is_discarded(), c.discarded);
    if (!c.discarded) {
      EXPECT_EQ(got, json::parse(c.text));
    }
  }
}

}  // namespace
}  // namespace coderunner
