#include "coderunner/judge/output_match.h"

#include <gtest/gtest.h>

namespace coderunner::judge {
namespace {

TEST(OutputMatchTest, EachModeAgainstTheSameExpectedOutputs) {
  struct Case {
    const char* name;
    const char* actual;
    const char* expected;
    bool exact, trailing, tokens, numbers;
  };
  const Case cases[] = {
      {"identical", "1 2\n3\n", "1 2\n3\n", true, true, true, true},
      {"no final newline", "1 2\n3", "1 2\n3\n", false, true, true, true},
      {"trailing blanks and CRLF", "1 2  \r\n3\t\n\n\n", "1 2\n3\n", false, true, true, true},
      {"leading blank", " 1 2\n3\n", "1 2\n3\n", false, false, true, true},
      {"tokens across lines", "1\n2\n3\n", "1 2\n3\n", false, false, true, true},
      {"a blank line inside", "1 2\n\n3\n", "1 2\n3\n", false, false, true, true},
      {"a different token", "1 2\n4\n", "1 2\n3\n", false, false, false, false},
      {"one token more", "1 2\n3 4\n", "1 2\n3\n", false, false, false, false},
      {"numbers within 1e-6", "0.3333333\n", "0.33333333333\n", false, false, false, true},
      {"numbers past it", "0.3333\n", "0.33333333333\n", false, false, false, false},
      {"relative for large ones", "1000000000.5\n", "1000000000\n", false, false, false, true},
      {"a number spelled otherwise", "+1.50\n", "1.5\n", false, false, false, true},
      {"words stay words", "Yes\n", "yes\n", false, false, false, false},
      {"nan is a word", "nan\n", "nan\n", true, true, true, true},
      {"inf is not a number", "inf\n", "1e308\n", false, false, false, false},
      {"both empty", "", "\n\n", false, true, true, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    MatchRule rule;
    rule.mode = MatchMode::kExact;
    EXPECT_EQ(OutputMatches(c.actual, c.expected, rule), c.exact);
    rule.mode = MatchMode::kTrailingWhitespace;
    EXPECT_EQ(OutputMatches(c.actual, c.expected, rule), c.trailing);
    rule.mode = MatchMode::kTokens;
    EXPECT_EQ(OutputMatches(c.actual, c.expected, rule), c.tokens);
    rule.mode = MatchMode::kNumbers;
    EXPECT_EQ(OutputMatches(c.actual, c.expected, rule), c.numbers);
  }
}

TEST(OutputMatchTest, ToleranceIsTheRules) {
  MatchRule rule{MatchMode::kNumbers, 0.01, 0};
  EXPECT_TRUE(OutputMatches("3.14", "3.1416", rule));
  EXPECT_FALSE(OutputMatches("3.1", "3.1416", rule));
  rule = MatchRule{MatchMode::kNumbers, 0, 0};
  EXPECT_TRUE(OutputMatches("2.50", "2.5", rule));
  EXPECT_FALSE(OutputMatches("2.5000001", "2.5", rule));
}

TEST(OutputMatchTest, ModeNamesRoundTrip) {
  for (MatchMode m : {MatchMode::kExact, MatchMode::kTrailingWhitespace, MatchMode::kTokens,
                      MatchMode::kNumbers}) {
    EXPECT_EQ(ParseMatchMode(MatchModeName(m)), m);
  }
  EXPECT_FALSE(ParseMatchMode("fuzzy").has_value());
}

}  // namespace
}  // namespace coderunner::judge
