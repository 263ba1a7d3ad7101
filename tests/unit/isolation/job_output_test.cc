#include "coderunner/isolation/job_output.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::isolation {
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

// A pooled job's stdout never shows the ready marker a prestart that
// preloads writes before its job exists: when it reaches the job's stream
// it comes first, whole or in pieces, and is dropped; output that only
// begins like it, or shows it later, is the job's own and kept.
TEST(JobOutputTest, ALeadingPrestartReadyMarkerIsDroppedAndNothingElse) {
  const std::string nonce = "00ff";
  const std::string ready(kPrestartReadyMarker);
  const std::string end = StdoutEndMarker(nonce);
  const std::string trailer = Frame(2, Trailer(nonce));
  struct Case {
    const char* name;
    std::vector<std::string> stream;
    std::string kept;
  };
  const Case cases[] = {
      {"marker, then output", {Frame(1, ready + "2\n" + end) + trailer}, "2\n"},
      {"marker in two frames",
       {Frame(1, ready.substr(0, 7)), Frame(1, ready.substr(7) + "2\n" + end) + trailer},
       "2\n"},
      {"marker alone, no output", {Frame(1, ready), Frame(1, end) + trailer}, ""},
      {"output that begins like it",
       {Frame(1,
              "\x1e"
              "coderunner-pre\n" +
                  end) +
        trailer},
       "\x1e"
       "coderunner-pre\n"},
      {"the marker later", {Frame(1, "a\n" + ready + end) + trailer}, "a\n" + ready},
      {"a prefix of it, then the end",
       {Frame(1, ready.substr(0, 5)), Frame(1, end) + trailer},
       ready.substr(0, 5)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string live;
    JobOutput io(1 << 20, [&](engine::StreamId s, std::string_view b) {
      if (s == engine::StreamId::kStdout) live.append(b);
    });
    io.ExpectEnd(nonce, [] {});
    for (const auto& chunk : c.stream) ASSERT_TRUE(io.Feed(chunk));
    EXPECT_TRUE(io.ended());
    io.DropStdoutMarker();
    io.Finish();
    EXPECT_EQ(io.out().kept(), c.kept);
    EXPECT_EQ(live, c.kept);
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

// A raw attach stream of one-byte frames, as a job writing one byte per
// write(2) can produce, fed in curl-sized chunks.
struct FrameFlood {
  const char* name;
  size_t frames;
  size_t stderr_every;  // Every n-th frame on stderr (0: none).
  char byte;
  bool pooled;  // ExpectEnd: stdout goes through the marker filter too.
};

TEST(JobOutputTest, OneByteFramesReachObserversInFewCallsWithTheBytesIntact) {
  const size_t kChunk = 16 << 10;  // CURL_MAX_WRITE_SIZE.
  // 256 Ki frames each (8 bytes of header per byte: 2.25 MiB a flood):
  // enough for the count of calls to tell per-frame from per-chunk; 1 Mi
  // each took most of a minute under the sanitizers.
  constexpr size_t kFrames = 1 << 18;
  const std::vector<FrameFlood> floods = {
      {"256 KiB of stdout frames", kFrames, 0, 'x', false},
      {"256 KiB of record separator frames", kFrames, 0, '\x1e', false},
      {"record separators, pooled", kFrames, 0, '\x1e', true},
      {"record separators on stderr", kFrames, 1, '\x1e', false},
      {"record separators on both, switching every 64", kFrames, 64, '\x1e', true},
  };
  const std::string nonce = "00ff";
  for (const FrameFlood& f : floods) {
    SCOPED_TRACE(f.name);
    std::string raw;
    std::string want[2];
    size_t switches = 0;
    bool last_err = false;
    for (size_t i = 0; i < f.frames; ++i) {
      bool err = f.stderr_every != 0 && i % f.stderr_every == 0;
      switches += i > 0 && err != last_err;
      last_err = err;
      raw += Frame(err ? 2 : 1, std::string(1, f.byte));
      want[err ? 1 : 0] += f.byte;
    }
    if (f.pooled) raw += Frame(1, StdoutEndMarker(nonce));
    raw += Frame(2, Trailer(nonce));
    std::string live[2];
    size_t calls = 0;
    JobOutput io(1 << 20, [&](engine::StreamId s, std::string_view b) {
      live[s == engine::StreamId::kStderr ? 1 : 0].append(b);
      ++calls;
    });
    if (f.pooled) io.ExpectEnd(nonce, [] {});
    size_t feeds = 0;
    for (size_t at = 0; at < raw.size(); at += kChunk, ++feeds) {
      ASSERT_TRUE(io.Feed(std::string_view(raw).substr(at, kChunk)));
    }
    io.Finish();
    EXPECT_EQ(io.ended(), f.pooled);
    EXPECT_TRUE(live[0] == want[0]) << live[0].size() << " vs " << want[0].size();
    EXPECT_TRUE(live[1] == want[1]) << live[1].size() << " vs " << want[1].size();
    // One call per chunk and per switch of stream (+ Finish), not per frame.
    EXPECT_LE(calls, feeds + switches + 2) << "for " << f.frames << " frames";
  }
}

}  // namespace
}  // namespace coderunner::isolation
