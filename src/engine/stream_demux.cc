#include "coderunner/engine/stream_demux.h"

#include <algorithm>

namespace coderunner::engine {

Status StreamDemuxer::Feed(std::string_view bytes) {
  if (broken_) return InvalidArgumentError("engine stream is corrupt", "bad_stream");
  while (!bytes.empty()) {
    if (remaining_ == 0) {
      size_t take = std::min(bytes.size(), sizeof(header_) - header_len_);
      std::copy_n(bytes.data(), take, header_ + header_len_);
      header_len_ += take;
      bytes.remove_prefix(take);
      if (header_len_ < sizeof(header_)) return OkStatus();
      header_len_ = 0;
      if (header_[0] > 2) {
        broken_ = true;
        return InvalidArgumentError(
            "engine stream has unknown stream type " + std::to_string(header_[0]), "bad_stream");
      }
      current_ = static_cast<StreamId>(header_[0]);
      remaining_ = (uint32_t{header_[4]} << 24) | (uint32_t{header_[5]} << 16) |
                   (uint32_t{header_[6]} << 8) | uint32_t{header_[7]};
      continue;
    }
    size_t take = std::min<size_t>(bytes.size(), remaining_);
    sink_(current_, bytes.substr(0, take));
    remaining_ -= static_cast<uint32_t>(take);
    bytes.remove_prefix(take);
  }
  return OkStatus();
}

}  // namespace coderunner::engine
