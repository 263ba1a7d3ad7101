#include "coderunner/sessions/marker_cut.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::sessions {
namespace {

const std::string kEnd = "\"eof\":\"abc123\"}\n";
const std::string kMarker =
    "\x1e"
    "coderunner-init {\"eof\":\"abc123\"}\n";
const std::string kTrailer =
    "\x1e"
    "coderunner-init {\"exit_code\":0,\"timed_out\":0,\"eof\":\"abc123\"}\n";

struct Case {
  const char* name;
  std::vector<std::string> feeds;
  size_t cap;
  bool want_found;
  std::string want_out;  // After Flush when not found.
  std::string want_marker;
  bool want_truncated;
};

class MarkerCutTest : public ::testing::TestWithParam<Case> {};

TEST_P(MarkerCutTest, CutsAtTheMarkerWhereverItLands) {
  const Case& c = GetParam();
  MarkerCut cut(kEnd, c.cap);
  for (const auto& f : c.feeds) cut.Feed(f);
  EXPECT_EQ(cut.found(), c.want_found);
  if (!cut.found()) cut.Flush();
  EXPECT_EQ(cut.out().kept(), c.want_out);
  EXPECT_EQ(cut.marker(), c.want_marker);
  EXPECT_EQ(cut.out().truncated(), c.want_truncated);
}

std::vector<std::string> Bytes(const std::string& s) {
  std::vector<std::string> out;
  for (char ch : s) out.emplace_back(1, ch);
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MarkerCutTest,
    ::testing::Values(
        Case{"MarkerAtTheEnd", {"hello\n" + kMarker}, 100, true, "hello\n", kMarker, false},
        Case{"NoNewlineBeforeTheMarker", {"a" + kMarker}, 100, true, "a", kMarker, false},
        Case{"SplitIntoSingleBytes", Bytes("out\n" + kMarker), 100, true, "out\n", kMarker, false},
        Case{"OutputAfterTheMarkerIsNotTheCalls",
             {"x\n" + kMarker + "background noise\n", "more noise"},
             100,
             true,
             "x\n",
             kMarker,
             false},
        Case{"TrailerOnStderr", {"err\n", kTrailer, "qqqq"}, 100, true, "err\n", kTrailer, false},
        Case{"EndWithoutItsLineStartIsOutput",
             {"print " + kEnd + "and on\n"},
             100,
             false,
             "print " + kEnd + "and on\n",
             "",
             false},
        Case{"AnotherNonceIsOutput",
             {"\x1e"
              "coderunner-init {\"eof\":\"zzz\"}\n"},
             100,
             false,
             "\x1e"
             "coderunner-init {\"eof\":\"zzz\"}\n",
             "",
             false},
        Case{"CappedOutputStillFindsTheMarker",
             {std::string(5000, 'y'), kMarker},
             10,
             true,
             std::string(10, 'y'),
             kMarker,
             true},
        Case{"NoMarkerAtAll", {"partial", " output"}, 100, false, "partial output", "", false},
        Case{"RecordSeparatorFloodByteByByte", Bytes(std::string(256 << 10, '\x1e') + kMarker),
             1 << 20, true, std::string(256 << 10, '\x1e'), kMarker, false},
        Case{"MarkerLookalikeFloodThenTheMarker", Bytes([] {
               std::string s;
               while (s.size() < (64 << 10))
                 s += "\x1e"
                      "coderunner-init {\"eof\":";
               return s;
             }() + kMarker),
             1 << 20, true,
             [] {
               std::string s;
               while (s.size() < (64 << 10))
                 s += "\x1e"
                      "coderunner-init {\"eof\":";
               return s;
             }(),
             kMarker, false}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace coderunner::sessions
