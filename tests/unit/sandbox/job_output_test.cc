#include "coderunner/sandbox/job_output.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::sandbox {
namespace {

// One frame of Docker's multiplexed attach stream.
std::string Frame(int stream, const std::string& payload) {
  std::string f(8, '\0');
  f[0] = static_cast<char>(stream);
  uint32_t n = static_cast<uint32_t>(payload.size());
  f[4] = static_cast<char>(n >> 24);
  f[5] = static_cast<char>(n >> 16);
  f[6] = static_cast<char>(n >> 8);
  f[7] = static_cast<char>(n);
  return f + payload;
}

std::string Trailer(const std::string& eof) {
  return "\x1e"
         "coderunner-init {\"exit_code\":0,\"signal\":0,\"wall_us\":5,\"eof\":\"" +
         eof + "\"}\n";
}

struct EndCase {
  const char* name;
  std::vector<std::string> stream;  // Raw chunks, in order.
  bool ended;
  std::string stdout_after;  // Kept stdout once the marker is dropped.
};

TEST(JobOutputTest, EndMarkersWithTheNonceCompleteTheOutput) {
  const std::string nonce = "00ff";
  const std::string marker = StdoutEndMarker(nonce);
  const std::string both = Frame(1, "2\n" + marker) + Frame(2, Trailer(nonce));
  const std::vector<EndCase> cases = {
      {"both markers", {both}, true, "2\n"},
      {"split across chunks",
       {both.substr(0, 5), both.substr(5, 20), both.substr(25)},
       true,
       "2\n"},
      {"stderr first", {Frame(2, Trailer(nonce)), Frame(1, "2\n" + marker)}, true, "2\n"},
      {"wrong nonce",
       {Frame(1, "2\n" + StdoutEndMarker("aa")) + Frame(2, Trailer("aa"))},
       false,
       "2\n" + StdoutEndMarker("aa")},
      {"no stdout marker", {Frame(1, "2\n") + Frame(2, Trailer(nonce))}, false, "2\n"},
      {"no trailer", {Frame(1, "2\n" + marker)}, false, "2\n" + marker},
      {"output after the marker",
       {Frame(1, "2\n" + marker + "more") + Frame(2, Trailer(nonce))},
       false,
       "2\n" + marker + "more"},
  };
  for (const EndCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::string live;
    JobOutput io(1 << 20, [&](engine::StreamId s, std::string_view b) {
      if (s == engine::StreamId::kStdout) live.append(b);
    });
    int calls = 0;
    io.ExpectEnd(nonce, [&] { ++calls; });
    for (const auto& chunk : c.stream) ASSERT_TRUE(io.Feed(chunk));
    EXPECT_EQ(io.ended(), c.ended);
    EXPECT_EQ(calls, c.ended ? 1 : 0);
    io.DropStdoutMarker();
    io.Finish();
    EXPECT_EQ(io.out().kept(), c.stdout_after);
    if (c.ended) {
      EXPECT_EQ(live, "2\n") << "observers must never see the marker";
    }
  }
}

TEST(JobOutputTest, WithoutExpectEndStdoutPassesThroughUntouched) {
  std::string live;
  JobOutput io(1 << 20, [&](engine::StreamId, std::string_view b) { live.append(b); });
  std::string text = "a\n" + StdoutEndMarker("00");
  ASSERT_TRUE(io.Feed(Frame(1, text)));
  io.Finish();
  EXPECT_FALSE(io.ended());
  EXPECT_EQ(io.out().kept(), text);
  EXPECT_EQ(live, text);
}

TEST(JobOutputTest, ObserversSeeAtMostTheCapPerStream) {
  std::string live;
  JobOutput io(3, [&](engine::StreamId, std::string_view b) { live.append(b); });
  ASSERT_TRUE(io.Feed(Frame(1, "abcdef")));
  EXPECT_EQ(live, "abc");
  EXPECT_TRUE(io.out().truncated());
}

}  // namespace
}  // namespace coderunner::sandbox
