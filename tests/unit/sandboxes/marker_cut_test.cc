#include "coderunner/sandboxes/marker_cut.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::sandboxes {
namespace {

const std::string kNonce = "abc123";
const std::string kEnd = "\"eof\":\"abc123\"}\n";
const std::string kMarker =
    "\x1e"
    "coderunner-init {\"eof\":\"abc123\"}\n";
const std::string kTrailer =
    "\x1e"
    "coderunner-init {\"exit_code\":0,\"timed_out\":0,\"eof\":\"abc123\"}\n";
// An earlier call's, that the service never read to its end.
const std::string kEarlierMarker =
    "\x1e"
    "coderunner-init {\"eof\":\"zzz\"}\n";
const std::string kEarlierTrailer =
    "\x1e"
    "coderunner-init {\"exit_code\":1,\"timed_out\":0,\"eof\":\"old-9\"}\n";

// How the feeds reach the cut: as given, or one byte per Feed call (the
// bytes are split in the test body, not here: a table of 300k one-byte
// strings built at registration made every process of the suite slow).
enum class Split { kAsGiven, kOneByteEach };

struct Case {
  const char* name;
  std::vector<std::string> feeds;
  Split split;
  size_t cap;
  bool want_found;
  std::string want_out;  // After Flush when not found.
  std::string want_marker;
  bool want_truncated;
};

class MarkerCutTest : public ::testing::TestWithParam<Case> {};

TEST_P(MarkerCutTest, CutsAtTheMarkerWhereverItLands) {
  const Case& c = GetParam();
  MarkerCut cut(kNonce, c.cap);
  for (const auto& f : c.feeds) {
    if (c.split == Split::kAsGiven) {
      cut.Feed(f);
      continue;
    }
    for (size_t i = 0; i < f.size(); ++i) cut.Feed(std::string_view(f).substr(i, 1));
  }
  EXPECT_EQ(cut.found(), c.want_found);
  if (!cut.found()) cut.Flush();
  EXPECT_EQ(cut.out().kept(), c.want_out);
  EXPECT_EQ(cut.marker(), c.want_marker);
  EXPECT_EQ(cut.out().truncated(), c.want_truncated);
}

// 64 KiB of marker prefixes that never complete.
std::string LookalikeFlood() {
  std::string s;
  while (s.size() < (64 << 10))
    s += "\x1e"
         "coderunner-init {\"eof\":";
  return s;
}

constexpr Split kAsGiven = Split::kAsGiven;
constexpr Split kOneByteEach = Split::kOneByteEach;

INSTANTIATE_TEST_SUITE_P(
    Cases, MarkerCutTest,
    ::testing::Values(
        Case{"MarkerAtTheEnd",
             {"hello\n" + kMarker},
             kAsGiven,
             100,
             true,
             "hello\n",
             kMarker,
             false},
        Case{"NoNewlineBeforeTheMarker", {"a" + kMarker}, kAsGiven, 100, true, "a", kMarker, false},
        Case{"SplitIntoSingleBytes",
             {"out\n" + kMarker},
             kOneByteEach,
             100,
             true,
             "out\n",
             kMarker,
             false},
        Case{"OutputAfterTheMarkerIsNotTheCalls",
             {"x\n" + kMarker + "background noise\n", "more noise"},
             kAsGiven,
             100,
             true,
             "x\n",
             kMarker,
             false},
        Case{"TrailerOnStderr",
             {"err\n", kTrailer, "qqqq"},
             kAsGiven,
             100,
             true,
             "err\n",
             kTrailer,
             false},
        Case{"EndWithoutItsLineStartIsOutput",
             {"print " + kEnd + "and on\n"},
             kAsGiven,
             100,
             false,
             "print " + kEnd + "and on\n",
             "",
             false},
        Case{"AnEarlierCallsEndIsNotThisCallsOutput",
             {"old\n" + kEarlierMarker},
             kAsGiven,
             100,
             false,
             "",
             "",
             false},
        Case{"WhatAnEarlierCallLeftIsDropped",
             {"old output\n" + kEarlierMarker + "new\n" + kMarker},
             kAsGiven,
             100,
             true,
             "new\n",
             kMarker,
             false},
        Case{"WhatAnEarlierCallLeftIsDroppedByteByByte",
             {"old output\n", kEarlierMarker, "new\n", kMarker},
             kOneByteEach,
             100,
             true,
             "new\n",
             kMarker,
             false},
        Case{"AnEarlierCallsTrailerOnStderr",
             {"Traceback\n" + kEarlierTrailer, "err\n", kTrailer},
             kAsGiven,
             100,
             true,
             "err\n",
             kTrailer,
             false},
        Case{"AnEarlierCallsFloodDoesNotTruncateThisOne",
             {std::string(5000, 'o'), kEarlierMarker + "x" + kMarker},
             kAsGiven,
             10,
             true,
             "x",
             kMarker,
             false},
        Case{"EarlierEndWithoutItsLineStartIsOutput",
             {"print \"eof\":\"zzz\"}\n"},
             kAsGiven,
             100,
             false,
             "print \"eof\":\"zzz\"}\n",
             "",
             false},
        Case{"CappedOutputStillFindsTheMarker",
             {std::string(5000, 'y'), kMarker},
             kAsGiven,
             10,
             true,
             std::string(10, 'y'),
             kMarker,
             true},
        Case{"NoMarkerAtAll",
             {"partial", " output"},
             kAsGiven,
             100,
             false,
             "partial output",
             "",
             false},
        Case{"RecordSeparatorFloodByteByByte",
             {std::string(256 << 10, '\x1e') + kMarker},
             kOneByteEach,
             1 << 20,
             true,
             std::string(256 << 10, '\x1e'),
             kMarker,
             false},
        Case{"MarkerLookalikeFloodThenTheMarker",
             {LookalikeFlood() + kMarker},
             kOneByteEach,
             1 << 20,
             true,
             LookalikeFlood(),
             kMarker,
             false}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// What a streaming caller may send after each Feed: never a byte a marker
// line could still take back, never past the cap, and, after an earlier
// call's end, only this call's.
TEST(MarkerCutSettledTest, SettledIsWhatNoMarkerCanTakeBack) {
  struct Step {
    std::string feed;
    std::string want;  // Settled(0) after it.
  };
  struct Row {
    const char* name;
    size_t cap;
    std::vector<Step> steps;
  };
  const Row rows[] = {
      {"plain output settles at once", 100, {{"ready\n", "ready\n"}, {"go", "ready\ngo"}}},
      {"a line that may be a marker waits",
       100,
       {{"a\x1e"
         "coderunner-in",
         "a"},
        {"it?\nb",
         "a\x1e"
         "coderunner-init?\nb"}}},
      {"the marker itself never settles",
       100,
       {{"x", "x"}, {kMarker.substr(0, 10), "x"}, {kMarker.substr(10), "x"}}},
      {"within the cap", 4, {{"abcdef", "abcd"}, {"gh", "abcd"}}},
      {"an earlier call's end starts it over",
       100,
       {{"old\n", "old\n"}, {kEarlierMarker + "new", "new"}}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    MarkerCut cut(kNonce, row.cap);
    for (const Step& step : row.steps) {
      cut.Feed(step.feed);
      EXPECT_EQ(cut.Settled(0), step.want);
      EXPECT_EQ(cut.settled_size(), step.want.size());
      if (step.want.size() > 1) {
        EXPECT_EQ(cut.Settled(1), step.want.substr(1));
      }
    }
  }
}

// One byte at a time, with a line start open: what settles stays a prefix
// of the output, and the output is what it would have been.
TEST(MarkerCutSettledTest, OneByteFeedsSettleAPrefixOfTheOutput) {
  const std::string output = "p\x1e" + std::string(3000, 'y') + "\nq";
  MarkerCut cut(kNonce, 1 << 20);
  size_t settled = 0;
  for (char c : output + kMarker) {
    cut.Feed(std::string_view(&c, 1));
    ASSERT_GE(cut.settled_size(), settled);
    settled = cut.settled_size();
    ASSERT_EQ(cut.Settled(0), output.substr(0, settled));
  }
  EXPECT_TRUE(cut.found());
  EXPECT_EQ(cut.out().kept(), output);
}

}  // namespace
}  // namespace coderunner::sandboxes
