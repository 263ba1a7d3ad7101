// StreamDemuxer: splits the Engine API's multiplexed stdout/stderr stream.
//
// Without a TTY, attach and logs send frames: an 8-byte header
// {stream, 0, 0, 0, size as big-endian uint32} followed by `size` payload
// bytes, where stream is 0 (stdin), 1 (stdout) or 2 (stderr). Bytes may
// arrive split anywhere. The demuxer buffers at most the 8 header bytes and
// forwards payload slices as they come, so its memory use is constant however
// large the frames.
#ifndef CODERUNNER_ENGINE_STREAM_DEMUX_H_
#define CODERUNNER_ENGINE_STREAM_DEMUX_H_

#include <cstdint>
#include <functional>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::engine {

enum class StreamId : uint8_t { kStdin = 0, kStdout = 1, kStderr = 2 };

// Not thread-safe; one instance per stream.
class StreamDemuxer {
 public:
  using Sink = std::function<void(StreamId, std::string_view)>;

  // `sink` receives payload slices in order; it must not call back into this
  // demuxer.
  explicit StreamDemuxer(Sink sink) : sink_(std::move(sink)) {}

  // Consumes `bytes`. A header naming an unknown stream is InvalidArgument
  // (reason "bad_stream"), after which every Feed fails the same way.
  Status Feed(std::string_view bytes);

  // True when the input so far ended exactly at a frame boundary.
  bool AtFrameBoundary() const { return header_len_ == 0 && remaining_ == 0; }

 private:
  Sink sink_;
  unsigned char header_[8] = {0};
  size_t header_len_ = 0;
  uint32_t remaining_ = 0;
  StreamId current_ = StreamId::kStdout;
  bool broken_ = false;
};

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_STREAM_DEMUX_H_
