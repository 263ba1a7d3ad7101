#include "coderunner/sandboxes/repl_driver.h"

#include <gtest/gtest.h>

#include <string>

namespace coderunner::sandboxes {
namespace {

struct DriverCase {
  const char* language;
  const char* interpreter;
  const char* want_file;
  bool interrupts;
  bool allows_nul;
};

class DriverForTest : public ::testing::TestWithParam<DriverCase> {};

TEST_P(DriverForTest, EachLanguageRunsItsDriverWithTheImagesInterpreter) {
  const DriverCase& c = GetParam();
  isolation::LanguageSpec lang{c.language, "img", "main", {c.interpreter, "{file}"}, false, "", {}};
  auto d = DriverFor(lang);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->workspace_name, c.want_file);
  EXPECT_FALSE(d->source.empty());
  ASSERT_GE(d->command.size(), 3u);
  EXPECT_EQ(d->command.front(), c.interpreter);
  EXPECT_EQ(d->command.back(), "/workspace/.coderunner-in");
  EXPECT_EQ(d->command[d->command.size() - 2], "/workspace/" + std::string(c.want_file));
  EXPECT_EQ(d->interrupts_calls, c.interrupts);
  EXPECT_EQ(d->allows_nul, c.allows_nul);
}

INSTANTIATE_TEST_SUITE_P(
    Languages, DriverForTest,
    ::testing::Values(DriverCase{"python", "python3.11", ".coderunner-repl.py", true, true},
                      DriverCase{"javascript", "/usr/local/bin/node", ".coderunner-repl.js", true,
                                 true},
                      DriverCase{"bash", "bash", ".coderunner-repl.sh", false, false}));

TEST(DriverForTest, TypescriptRunsJavaScriptsDriverOnNodeCompilingCells) {
  // The language's command starts with tsx; the driver is node's.
  isolation::LanguageSpec lang{
      "typescript", "img", "main.ts", {"tsx", "--import", "data:x", "{file}"}, false, "", {"ts"}};
  auto d = DriverFor(lang);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->workspace_name, ".coderunner-repl.js");
  EXPECT_EQ(d->source, DriverSource("repl.js"));
  EXPECT_EQ(d->command, (std::vector<std::string>{"node", "/workspace/.coderunner-repl.js",
                                                  "--typescript", "/workspace/.coderunner-in"}));
  EXPECT_TRUE(d->interrupts_calls);
  EXPECT_TRUE(d->allows_nul);
  EXPECT_NE(d->source.find("--typescript"), std::string_view::npos);
}

TEST(DriverForTest, OtherLanguagesAreRefused) {
  isolation::LanguageSpec lang{"ruby", "img", "main.rb", {"ruby", "{file}"}, false, "", {}};
  auto d = DriverFor(lang);
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().reason(), "sandbox_language_unsupported");
}

TEST(EncodeCallTest, FrameIsMagicLengthAndNulSeparatedFields) {
  struct Case {
    std::string nonce;
    int64_t timeout_ms;
    std::string code;
  } cases[] = {
      {"ab12", 500, "print(1)"},
      {"00ff", 1, ""},
      {"deadbeef", 60000, std::string("a\0b'''${x}$(id)`\x1e", 18)},
  };
  for (const auto& c : cases) {
    std::string f = EncodeCall(c.nonce, c.timeout_ms, c.code);
    ASSERT_GE(f.size(), 8u);
    EXPECT_EQ(f.substr(0, 4), "CRX1");
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i)
      n |= static_cast<uint32_t>(static_cast<unsigned char>(f[4 + i])) << (8 * i);
    EXPECT_EQ(n, f.size() - 8);
    std::string want = c.nonce + '\0' + std::to_string(c.timeout_ms) + '\0' + c.code;
    EXPECT_EQ(f.substr(8), want);
  }
}

}  // namespace
}  // namespace coderunner::sandboxes
