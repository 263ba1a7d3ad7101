#include "coderunner/sandbox/job_output.h"

#include <algorithm>

namespace coderunner::sandbox {

JobOutput::JobOutput(uint64_t cap, Observer on_output)
    : cap_(cap),
      on_output_(std::move(on_output)),
      out_(static_cast<size_t>(cap)),
      err_(static_cast<size_t>(cap)),
      demux_([this](engine::StreamId stream, std::string_view bytes) {
        if (on_output_) {
          if (stream == engine::StreamId::kStderr) {
            live_stderr_.Feed(bytes, [&](std::string_view b) { Show(stream, b); });
          } else {
            Show(stream, bytes);
          }
        }
        (stream == engine::StreamId::kStderr ? err_ : out_).Append(bytes);
      }) {}

bool JobOutput::Feed(std::string_view chunk) { return demux_.Feed(chunk).ok(); }

void JobOutput::Finish() {
  if (on_output_) {
    live_stderr_.Finish([&](std::string_view b) { Show(engine::StreamId::kStderr, b); });
  }
}

void JobOutput::Show(engine::StreamId stream, std::string_view bytes) {
  uint64_t& used = shown_[stream == engine::StreamId::kStderr ? 1 : 0];
  size_t room = used < cap_ ? static_cast<size_t>(cap_ - used) : 0;
  bytes = bytes.substr(0, std::min(room, bytes.size()));
  if (bytes.empty()) return;
  used += bytes.size();
  on_output_(stream, bytes);
}

}  // namespace coderunner::sandbox
