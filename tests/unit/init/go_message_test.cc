// coderunner-init's "go" message parser (src/init/go_message.c), compiled
// into the unit tests so that the sanitizer pass runs it under ASan and
// UBSan (the init binary itself is static and never sanitized). Every
// payload is copied into a buffer of exactly its size: a read past it is
// an ASan error. Fuzzed as well: tests/fuzz/go_message_fuzzer.cc.
#include "init/go_message.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

std::string Header(uint32_t len, const char* magic = "CRGO") {
  std::string h(magic, 4);
  for (int i = 0; i < 4; ++i) h.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  return h;
}

TEST(GoMessageTest, HeaderAnnouncesTheLengthWithinBounds) {
  struct Case {
    std::string header;
    long want;
  };
  const Case cases[] = {
      {Header(1), 1},           {Header(60000), 60000},    {Header(0), -1},
      {Header(60001), -1},      {Header(0xffffffffu), -1}, {Header(10, "CRGX"), -1},
      {Header(10, "crgo"), -1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.want);
    EXPECT_EQ(GoPayloadLength(reinterpret_cast<const unsigned char*>(c.header.data())), c.want);
  }
}

struct PayloadCase {
  const char* name;
  std::string payload;
  int rc;
  int with_stdin;
  std::string nonce;
  std::vector<std::string> args;
  int series = 0;
  int more = 0;
  int keep_output = 0;
};

TEST(GoMessageTest, ParsesWellFormedPayloadsAndRefusesTheRest) {
  using std::string;
  const string n64(64, 'a');
  const string nul(1, '\0');
  const PayloadCase cases[] = {
      {"stdin, nonce, args",
       string("stdin\0abc123\0once\0one\0two words\0", 32),
       0,
       1,
       "abc123",
       {"one", "two words"}},
      {"no stdin, no args", string("-\0ff\0once\0", 10), 0, 0, "ff", {}},
      {"empty nonce", string("-\0\0once\0x\0", 10), 0, 0, "", {"x"}},
      {"empty argument", string("-\0a\0once\0\0", 10), 0, 0, "a", {""}},
      {"64-character nonce", "-" + nul + n64 + nul + "once" + nul, 0, 0, n64, {}},
      {"a series' case, more to come", string("-\0a\0more\0x\0", 11), 0, 0, "a", {"x"}, 1, 1},
      {"a series' last case", string("stdin\0a\0last\0", 13), 0, 1, "a", {}, 1, 0},
      {"a reuse scope's job", string("-\0a\0reuse\0", 10), 0, 0, "a", {}, 1, 1, 1},
      {"65-character nonce", "-" + nul + n64 + "a" + nul + "once" + nul, -1, 0, "", {}},
      {"upper-case nonce", string("-\0AB\0once\0", 10), -1, 0, "", {}},
      {"quote in nonce", string("-\0a\"\0once\0", 10), -1, 0, "", {}},
      {"unknown mode", string("-\0ab\0again\0", 11), -1, 0, "", {}},
      {"no mode field", string("-\0ab\0", 5), -1, 0, "", {}},
      {"not NUL-terminated", string("-\0ab\0once\0x", 11), -1, 0, "", {}},
      {"no nonce field", string("stdin\0", 6), -1, 0, "", {}},
      {"one NUL", string("\0", 1), -1, 0, "", {}},
  };
  for (const PayloadCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<char> exact(c.payload.begin(), c.payload.end());
    GoMessage msg;
    ASSERT_EQ(ParseGoPayload(exact.data(), exact.size(), &msg), c.rc);
    if (c.rc != 0) continue;
    EXPECT_EQ(msg.with_stdin, c.with_stdin);
    EXPECT_EQ(std::string(msg.nonce), c.nonce);
    EXPECT_EQ(msg.series, c.series);
    EXPECT_EQ(msg.more, c.more);
    EXPECT_EQ(msg.keep_output, c.keep_output);
    ASSERT_EQ(msg.nargs, static_cast<int>(c.args.size()));
    for (int i = 0; i < msg.nargs; ++i) EXPECT_EQ(msg.args[i], c.args[i]);
  }
}

TEST(GoMessageTest, ArgumentCountIsBounded) {
  std::string at_bound("-\0a\0once\0", 9);
  for (int i = 0; i < kMaxGoArgs; ++i) at_bound += std::string("x\0", 2);
  std::vector<char> ok(at_bound.begin(), at_bound.end());
  GoMessage msg;
  EXPECT_EQ(ParseGoPayload(ok.data(), ok.size(), &msg), 0);
  EXPECT_EQ(msg.nargs, kMaxGoArgs);
  std::string over = at_bound + std::string("y\0", 2);
  std::vector<char> too_many(over.begin(), over.end());
  EXPECT_EQ(ParseGoPayload(too_many.data(), too_many.size(), &msg), -1);
}

TEST(GoMessageTest, EmptyPayloadIsRefused) {
  GoMessage msg;
  char none = 0;
  EXPECT_EQ(ParseGoPayload(&none, 0, &msg), -1);
}

}  // namespace
