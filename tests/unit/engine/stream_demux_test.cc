#include "coderunner/engine/stream_demux.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace coderunner::engine {
namespace {

std::string Frame(uint8_t stream, const std::string& payload) {
  std::string f(8, '\0');
  f[0] = static_cast<char>(stream);
  uint32_t n = static_cast<uint32_t>(payload.size());
  f[4] = static_cast<char>(n >> 24);
  f[5] = static_cast<char>(n >> 16);
  f[6] = static_cast<char>(n >> 8);
  f[7] = static_cast<char>(n);
  return f + payload;
}

// Collects what the demuxer forwards, merging consecutive slices of a stream.
struct Collector {
  std::string out, err, in;
  std::vector<std::pair<StreamId, std::string>> slices;
  StreamDemuxer::Sink sink() {
    return [this](StreamId id, std::string_view bytes) {
      slices.emplace_back(id, std::string(bytes));
      (id == StreamId::kStdout ? out : id == StreamId::kStderr ? err : in).append(bytes);
    };
  }
};

TEST(StreamDemuxTest, DemuxesMultipleFramesInOneChunk) {
  Collector c;
  StreamDemuxer d(c.sink());
  std::string input = Frame(1, "hello ") + Frame(2, "oops\n") + Frame(1, "world\n");
  ASSERT_TRUE(d.Feed(input).ok());
  EXPECT_EQ(c.out, "hello world\n");
  EXPECT_EQ(c.err, "oops\n");
  EXPECT_TRUE(d.AtFrameBoundary());
  ASSERT_EQ(c.slices.size(), 3u);
  EXPECT_EQ(c.slices[1], std::make_pair(StreamId::kStderr, std::string("oops\n")));
}

TEST(StreamDemuxTest, DemuxHandlesFrameSplitAtEveryByteBoundary) {
  const std::string input =
      Frame(1, "out-1") + Frame(2, "err-1") + Frame(1, "") + Frame(0, "in") + Frame(1, "out-2");
  for (size_t cut = 0; cut <= input.size(); ++cut) {
    SCOPED_TRACE(cut);
    Collector c;
    StreamDemuxer d(c.sink());
    ASSERT_TRUE(d.Feed(std::string_view(input).substr(0, cut)).ok());
    ASSERT_TRUE(d.Feed(std::string_view(input).substr(cut)).ok());
    EXPECT_EQ(c.out, "out-1out-2");
    EXPECT_EQ(c.err, "err-1");
    EXPECT_EQ(c.in, "in");
    EXPECT_TRUE(d.AtFrameBoundary());
  }
}

TEST(StreamDemuxTest, DemuxHandlesOneByteAtATime) {
  const std::string input = Frame(2, "abc") + Frame(1, "defg");
  Collector c;
  StreamDemuxer d(c.sink());
  for (size_t i = 0; i < input.size(); ++i) {
    ASSERT_TRUE(d.Feed(std::string_view(input).substr(i, 1)).ok()) << i;
    bool at_boundary = i + 1 == 11 || i + 1 == input.size();
    EXPECT_EQ(d.AtFrameBoundary(), at_boundary) << i;
  }
  EXPECT_EQ(c.err, "abc");
  EXPECT_EQ(c.out, "defg");
}

TEST(StreamDemuxTest, ZeroLengthFrameForwardsNothingAndKeepsBoundary) {
  Collector c;
  StreamDemuxer d(c.sink());
  ASSERT_TRUE(d.Feed(Frame(1, "")).ok());
  EXPECT_TRUE(d.AtFrameBoundary());
  for (const auto& s : c.slices) EXPECT_TRUE(s.second.empty());
  ASSERT_TRUE(d.Feed(Frame(2, "x")).ok());
  EXPECT_EQ(c.err, "x");
  EXPECT_EQ(c.out, "");
}

TEST(StreamDemuxTest, PartialHeaderOrPayloadIsNotAtFrameBoundary) {
  Collector c;
  StreamDemuxer d(c.sink());
  EXPECT_TRUE(d.AtFrameBoundary());
  std::string f = Frame(1, "abcdef");
  ASSERT_TRUE(d.Feed(f.substr(0, 3)).ok());
  EXPECT_FALSE(d.AtFrameBoundary());
  ASSERT_TRUE(d.Feed(f.substr(3, 7)).ok());
  EXPECT_FALSE(d.AtFrameBoundary());
  EXPECT_EQ(c.out, "ab");
  ASSERT_TRUE(d.Feed(f.substr(10)).ok());
  EXPECT_TRUE(d.AtFrameBoundary());
  EXPECT_EQ(c.out, "abcdef");
}

TEST(StreamDemuxTest, UnknownStreamTypeIsErrorAndStaysBroken) {
  for (uint8_t type : {3, 4, 0x80, 0xff}) {
    SCOPED_TRACE(static_cast<int>(type));
    Collector c;
    StreamDemuxer d(c.sink());
    ASSERT_TRUE(d.Feed(Frame(1, "ok")).ok());
    Status s = d.Feed(Frame(type, "bad") + Frame(1, "after"));
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.reason(), "bad_stream");
    // Every later Feed fails the same way, even with well-formed input.
    Status again = d.Feed(Frame(1, "more"));
    EXPECT_EQ(again.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(again.reason(), "bad_stream");
    EXPECT_EQ(d.Feed("").reason(), "bad_stream");
    EXPECT_EQ(c.out, "ok");
    EXPECT_EQ(c.err, "");
  }
}

TEST(StreamDemuxTest, BigFrameIsForwardedAsSlicesWithoutBuffering) {
  const size_t size = 8 << 20;  // 8 MiB in one frame.
  std::string header = Frame(1, "");
  header[4] = static_cast<char>(size >> 24);
  header[5] = static_cast<char>(size >> 16);
  header[6] = static_cast<char>(size >> 8);
  header[7] = static_cast<char>(size);
  size_t total = 0;
  size_t calls = 0;
  size_t largest = 0;
  StreamDemuxer d([&](StreamId id, std::string_view bytes) {
    EXPECT_EQ(id, StreamId::kStdout);
    total += bytes.size();
    largest = std::max(largest, bytes.size());
    ++calls;
  });
  ASSERT_TRUE(d.Feed(header).ok());
  const std::string chunk(64 << 10, 'x');
  for (size_t sent = 0; sent < size; sent += chunk.size()) {
    size_t before = total;
    ASSERT_TRUE(d.Feed(chunk).ok());
    // Each chunk reaches the sink as it is fed, not when the frame completes.
    ASSERT_EQ(total, before + chunk.size());
  }
  EXPECT_EQ(total, size);
  EXPECT_EQ(calls, size / chunk.size());
  EXPECT_LE(largest, chunk.size());
  EXPECT_TRUE(d.AtFrameBoundary());
}

TEST(StreamDemuxTest, SliceOfOneChunkSpanningFramesIsSplitPerFrame) {
  Collector c;
  StreamDemuxer d(c.sink());
  // Second half of a frame, then a whole frame, then the start of another.
  std::string a = Frame(1, "0123456789");
  std::string b = Frame(2, "EE");
  std::string e = Frame(1, "zz");
  ASSERT_TRUE(d.Feed(a.substr(0, 13)).ok());
  ASSERT_TRUE(d.Feed(a.substr(13) + b + e.substr(0, 9)).ok());
  ASSERT_TRUE(d.Feed(e.substr(9)).ok());
  std::vector<std::pair<StreamId, std::string>> want = {{StreamId::kStdout, "01234"},
                                                        {StreamId::kStdout, "56789"},
                                                        {StreamId::kStderr, "EE"},
                                                        {StreamId::kStdout, "z"},
                                                        {StreamId::kStdout, "z"}};
  EXPECT_EQ(c.slices, want);
}

}  // namespace
}  // namespace coderunner::engine
