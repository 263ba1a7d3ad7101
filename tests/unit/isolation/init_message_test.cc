// Both ends of the warm pool's "go" message: encoded by the service
// (isolation/init_message.h), decoded by coderunner-init's own C parser
// (src/init/go_message.c, linked into the unit tests). A change to either
// side's format breaks these tests.
#include "isolation/init_message.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "init/go_message.h"

namespace coderunner::isolation {
namespace {

// What init's parser makes of `wire`: -1 when it refuses the header or the
// payload. The payload is copied into a buffer of exactly its size (a read
// past it is an ASan error in the sanitizer build).
struct Decoded {
  int rc = -1;
  long announced = -1;
  bool with_stdin = false;
  bool series = false;
  bool more = false;
  bool keep_output = false;
  std::string nonce;
  std::vector<std::string> args;
};

Decoded Decode(const std::string& wire) {
  Decoded d;
  if (wire.size() < kGoHeaderBytes) return d;
  d.announced = GoPayloadLength(reinterpret_cast<const unsigned char*>(wire.data()));
  if (d.announced < 0) return d;
  std::vector<char> payload(wire.begin() + kGoHeaderBytes, wire.end());
  EXPECT_EQ(static_cast<size_t>(d.announced), payload.size());
  static GoMessage msg;  // Large: 1024 pointers.
  d.rc = ParseGoPayload(payload.data(), payload.size(), &msg);
  if (d.rc != 0) return d;
  d.with_stdin = msg.with_stdin != 0;
  d.series = msg.series != 0;
  d.more = msg.more != 0;
  d.keep_output = msg.keep_output != 0;
  d.nonce = msg.nonce;
  for (int i = 0; i < msg.nargs; ++i) d.args.emplace_back(msg.args[i]);
  return d;
}

std::vector<std::string> Args(size_t n, size_t bytes_each) {
  return std::vector<std::string>(n, std::string(bytes_each, 'x'));
}

TEST(InitMessageTest, InitDecodesWhatTheServiceEncodes) {
  struct Case {
    const char* name;
    GoRequest go;
  };
  const std::string hex24 = "0123456789abcdef01234567";
  const Case cases[] = {
      {"stdin, nonce, arguments", {true, hex24, {"one", "two words", "--flag=x"}}},
      {"no stdin, no arguments", {false, hex24, {}}},
      {"empty nonce", {false, "", {"a"}}},
      {"empty arguments", {true, "ab", {"", "", ""}}},
      {"64-character nonce", {false, std::string(64, 'f'), {"x"}}},
      {"bytes init passes through",
       {false, "00", {"\x01\x1e\xff", "é ünïcode", "a\tb\nc", "\"'$`"}}},
      {"1000 arguments", {false, hex24, Args(1000, 1)}},
      {"one argument of 55000 bytes", {true, hex24, Args(1, 55000)}},
      {"largest that fits", {true, std::string(64, 'a'), Args(1, 56000 - 80 - 1)}},
      {"a series' case", {true, hex24, {"a"}, GoMode::kMore}},
      {"a series' last case", {false, hex24, {}, GoMode::kLast}},
      {"one of a reuse scope's jobs", {true, hex24, {"a"}, GoMode::kReuse}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(FitsGoMessage(c.go.args));
    Decoded d = Decode(EncodeGoMessage(c.go));
    ASSERT_EQ(d.rc, 0);
    EXPECT_EQ(d.with_stdin, c.go.with_stdin);
    EXPECT_EQ(d.nonce, c.go.nonce);
    EXPECT_EQ(d.args, c.go.args);
    EXPECT_EQ(d.series, c.go.mode != GoMode::kOnce);
    EXPECT_EQ(d.more, c.go.mode == GoMode::kMore || c.go.mode == GoMode::kReuse);
    EXPECT_EQ(d.keep_output, c.go.mode == GoMode::kReuse);
  }
}

TEST(InitMessageTest, HeaderIsMagicThenLittleEndianPayloadLength) {
  struct Case {
    const char* name;
    GoRequest go;
    std::string wire;
  };
  using std::string;
  const Case cases[] = {
      {"bare", {false, "", {}}, string("CRGO\x08\0\0\0-\0\0once\0", 16)},
      {"stdin and one argument",
       {true, "a1", {"x"}},
       string("CRGO\x10\0\0\0stdin\0a1\0once\0x\0", 24)},
      {"a series' case", {false, "", {}, GoMode::kMore}, string("CRGO\x08\0\0\0-\0\0more\0", 16)},
      {"length over 255", {false, "", Args(1, 300)}, "CRGO" + string("\x35\x01\0\0", 4)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string wire = EncodeGoMessage(c.go);
    EXPECT_EQ(wire.substr(0, c.wire.size()), c.wire);
  }
}

TEST(InitMessageTest, WhatFitsStaysWithinInitsBounds) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    bool fits;
  };
  const Case cases[] = {
      {"none", {}, true},
      {"1000 empty", Args(1000, 0), true},
      {"1001 empty", Args(1001, 0), false},
      {"56000 bytes with overhead", Args(1, 56000 - 80 - 1), true},
      {"one byte more", Args(1, 56000 - 80), false},
      {"many medium", Args(500, 110), true},
      {"many medium, over", Args(500, 111), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(FitsGoMessage(c.args), c.fits);
    if (!c.fits) continue;
    // Whatever fits, with the longest nonce, init accepts whole.
    Decoded d = Decode(EncodeGoMessage({true, std::string(kMaxGoNonce, 'e'), c.args}));
    EXPECT_EQ(d.rc, 0);
    EXPECT_LE(d.announced, kMaxGoPayloadBytes);
    EXPECT_EQ(d.args.size(), c.args.size());
  }
}

TEST(InitMessageTest, InitRefusesWhatTheServiceMustNotSend) {
  struct Case {
    const char* name;
    GoRequest go;
    int rc;  // -1: refused; 0: accepted (as listed in `args`).
    std::vector<std::string> args;
  };
  const Case cases[] = {
      // The nonce is printed into JSON unescaped: hex only.
      {"upper-case nonce", {false, "AB", {}}, -1, {}},
      {"quote in nonce", {false, "a\"", {}}, -1, {}},
      {"65-character nonce", {false, std::string(65, 'a'), {}}, -1, {}},
      // execve cannot carry a NUL inside an argument (the API refuses one):
      // on the wire it would end the argument.
      {"NUL inside an argument", {false, "", {std::string("a\0b", 3)}}, 0, {"a", "b"}},
      {"payload over init's limit", {false, "", Args(1, 60000)}, -1, {}},
      {"more arguments than init takes", {false, "", Args(1025, 0)}, -1, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Decoded d = Decode(EncodeGoMessage(c.go));
    EXPECT_EQ(d.rc, c.rc);
    if (c.rc == 0) {
      EXPECT_EQ(d.args, c.args);
    }
  }
}

}  // namespace
}  // namespace coderunner::isolation
