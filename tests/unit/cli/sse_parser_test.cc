#include "cli/sse_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace coderunner::cli {
namespace {

using Events = std::vector<std::pair<std::string, std::string>>;

struct SseCase {
  const char* name;
  std::string stream;
  Events want;
};

class SseParserTest : public ::testing::TestWithParam<SseCase> {};

TEST_P(SseParserTest, SameEventsWhateverTheChunking) {
  const SseCase& c = GetParam();
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{7}, c.stream.size() + 1}) {
    Events got;
    SseParser parser([&got](const std::string& e, const std::string& d) {
      got.emplace_back(e, d);
      return true;
    });
    for (size_t i = 0; i < c.stream.size(); i += chunk) {
      EXPECT_TRUE(parser.Feed(std::string_view(c.stream).substr(i, chunk)));
    }
    EXPECT_EQ(got, c.want) << "chunk size " << chunk;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SseParserTest,
    ::testing::Values(
        SseCase{"one", "event: stage\ndata: {\"a\":1}\n\n", {{"stage", "{\"a\":1}"}}},
        SseCase{
            "keep_alive_skipped", ": keep-alive\n\nevent: result\ndata: x\n\n", {{"result", "x"}}},
        SseCase{"crlf", "event: s\r\ndata: y\r\n\r\n", {{"s", "y"}}},
        SseCase{"default_name_and_multiline", "data: a\ndata: b\n\n", {{"message", "a\nb"}}},
        SseCase{"no_space_after_colon", "event:e\ndata:d\n\n", {{"e", "d"}}},
        SseCase{"incomplete_event_waits", "event: e\ndata: d\n", {}},
        SseCase{
            "event_without_data_is_nothing", "event: e\n\nevent: f\ndata: 1\n\n", {{"f", "1"}}}),
    [](const ::testing::TestParamInfo<SseCase>& info) { return info.param.name; });

TEST(SseParserStopTest, HandlerFalseStopsFeeding) {
  int calls = 0;
  SseParser parser([&calls](const std::string&, const std::string&) {
    ++calls;
    return false;
  });
  EXPECT_FALSE(parser.Feed("data: 1\n\ndata: 2\n\n"));
  EXPECT_FALSE(parser.Feed("data: 3\n\n"));
  EXPECT_EQ(calls, 1);
}

struct BoundCase {
  const char* name;
  size_t max_event_bytes;
  std::string stream;
  Events want;
  bool overflowed;
};

class SseParserBoundTest : public ::testing::TestWithParam<BoundCase> {};

TEST_P(SseParserBoundTest, AnEventPastTheBoundStopsTheParser) {
  const BoundCase& c = GetParam();
  Events got;
  SseParser parser(
      [&got](const std::string& e, const std::string& d) {
        got.emplace_back(e, d);
        return true;
      },
      c.max_event_bytes);
  bool fed = true;
  for (size_t i = 0; i < c.stream.size() && fed; i += 4) {
    fed = parser.Feed(std::string_view(c.stream).substr(i, 4));
  }
  EXPECT_EQ(got, c.want);
  EXPECT_EQ(parser.overflowed(), c.overflowed);
  EXPECT_EQ(fed, !c.overflowed);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SseParserBoundTest,
    ::testing::Values(
        BoundCase{"within", 16, "data: 0123456789\n\n", {{"message", "0123456789"}}, false},
        BoundCase{"long_line", 16, "data: 0123456789abcdefghij\n\n", {}, true},
        BoundCase{
            "many_data_lines", 16, "data: 01234567\ndata: 89abcdef\ndata: ghij\n\n", {}, true},
        BoundCase{"bound_is_per_event",
                  16,
                  "data: 0123456789\n\ndata: 0123456789\n\n",
                  {{"message", "0123456789"}, {"message", "0123456789"}},
                  false}),
    [](const ::testing::TestParamInfo<BoundCase>& info) { return info.param.name; });

}  // namespace
}  // namespace coderunner::cli
