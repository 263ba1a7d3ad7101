#include "coderunner/sandbox/init_trailer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::sandbox {
namespace {

const std::string kMarker =
    "\x1e"
    "coderunner-init ";

std::string Trailer(const std::string& json) { return kMarker + json + "\n"; }

TEST(InitTrailerTest, ParsesValidTrailerAtTheEnd) {
  std::string t = Trailer(
      R"({"exit_code":3,"signal":0,"wall_us":12345,"cpu_us":6789,"memory_peak_bytes":1048576,"oom_kills":0})");
  std::string tail = "program output\n" + t;
  auto p = ParseInitTrailer(tail);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->exit_code, 3);
  EXPECT_EQ(p->signal, 0);
  EXPECT_EQ(p->wall_us, 12345);
  EXPECT_EQ(p->cpu_us, 6789);
  EXPECT_EQ(p->memory_peak_bytes, 1048576);
  EXPECT_EQ(p->oom_kills, 0);
  EXPECT_EQ(p->length, t.size());
  EXPECT_EQ(tail.substr(tail.size() - p->length), t);
}

TEST(InitTrailerTest, TrailerAfterUnterminatedOutputLine) {
  std::string t = Trailer(R"({"exit_code":137,"signal":9})");
  auto p = ParseInitTrailer("no newline here" + t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->signal, 9);
  EXPECT_EQ(p->exit_code, 137);
  EXPECT_EQ(p->length, t.size());
}

TEST(InitTrailerTest, MissingFieldsTakeDefaults) {
  auto p = ParseInitTrailer(Trailer("{}"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->exit_code, 0);
  EXPECT_EQ(p->signal, 0);
  EXPECT_EQ(p->wall_us, 0);
  EXPECT_EQ(p->cpu_us, -1);
  EXPECT_EQ(p->memory_peak_bytes, -1);
  EXPECT_EQ(p->oom_kills, -1);
}

TEST(InitTrailerTest, MistypedFieldsTakeDefaults) {
  auto p = ParseInitTrailer(Trailer(R"({"exit_code":"1","cpu_us":1.5,"oom_kills":null})"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->exit_code, 0);
  EXPECT_EQ(p->cpu_us, -1);
  EXPECT_EQ(p->oom_kills, -1);
}

TEST(InitTrailerTest, LastTrailerWinsOverAForgedEarlierOne) {
  std::string forged = Trailer(R"({"exit_code":0,"cpu_us":1})");
  std::string real = Trailer(R"({"exit_code":2,"cpu_us":999})");
  auto p = ParseInitTrailer(forged + real);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->exit_code, 2);
  EXPECT_EQ(p->cpu_us, 999);
  EXPECT_EQ(p->length, real.size());
}

TEST(InitTrailerTest, RejectsAnythingButAValidTrailerAtTheEnd) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"empty", ""},
      {"no trailer", "just output\n"},
      {"trailer not at end", Trailer(R"({"exit_code":1})") + "more output\n"},
      {"trailer without newline", kMarker + R"({"exit_code":1})"},
      {"trailer then unterminated text", Trailer(R"({"exit_code":1})") + "x"},
      {"garbage json", Trailer("{not json")},
      {"json array", Trailer("[1,2]")},
      {"json number", Trailer("5")},
      {"empty json", Trailer("")},
      {"marker without record separator", "coderunner-init {\"exit_code\":1}\n"},
      {"truncated start of marker", std::string("oderunner-init {}\n")},
  };
  for (const auto& [name, tail] : cases) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(ParseInitTrailer(tail).has_value());
  }
}

}  // namespace
}  // namespace coderunner::sandbox
