#include "coderunner/isolation/job_output.h"

#include <algorithm>

namespace coderunner::isolation {

JobOutput::JobOutput(uint64_t cap, Observer on_output)
    : cap_(cap),
      on_output_(std::move(on_output)),
      out_(static_cast<size_t>(cap)),
      err_(static_cast<size_t>(cap)),
      demux_([this](engine::StreamId stream, std::string_view bytes) {
        if (stream == engine::StreamId::kStdout && !end_marker_.empty() && !lead_done_) {
          TakeStdout(bytes);
        } else {
          Take(stream, bytes);
        }
      }) {}

void JobOutput::Take(engine::StreamId stream, std::string_view bytes) {
  if (on_output_) {
    if (stream == engine::StreamId::kStderr) {
      live_stderr_.Feed(bytes, [&](std::string_view b) { Show(stream, b); });
    } else if (!end_marker_.empty()) {
      live_stdout_.Feed(bytes, [&](std::string_view b) { Show(stream, b); });
    } else {
      Show(stream, bytes);
    }
  }
  (stream == engine::StreamId::kStderr ? err_ : out_).Append(bytes);
}

void JobOutput::TakeStdout(std::string_view bytes) {
  lead_.append(bytes);
  const std::string_view marker = kPrestartReadyMarker;
  if (lead_.size() < marker.size() && marker.starts_with(lead_)) return;  // Maybe it, still.
  lead_done_ = true;
  std::string held;
  held.swap(lead_);
  std::string_view rest = held;
  if (rest.starts_with(marker)) rest.remove_prefix(marker.size());
  if (!rest.empty()) Take(engine::StreamId::kStdout, rest);
}

void JobOutput::ExpectEnd(std::string nonce, std::function<void()> on_end) {
  end_marker_ = StdoutEndMarker(nonce);
  nonce_ = std::move(nonce);
  on_end_ = std::move(on_end);
}

bool JobOutput::Feed(std::string_view chunk) {
  bool ok = demux_.Feed(chunk).ok();
  FlushShown();
  if (!ok) return false;
  if (!end_marker_.empty() && !ended_) {
    std::string_view tail = out_.tail();
    if (tail.size() >= end_marker_.size() &&
        tail.compare(tail.size() - end_marker_.size(), end_marker_.size(), end_marker_) == 0) {
      std::optional<InitTrailer> t = ParseInitTrailer(err_.tail());
      if (t && t->eof == nonce_) {
        ended_ = true;
        if (on_end_) on_end_();
      }
    }
  }
  return true;
}

void JobOutput::DropStdoutMarker() {
  if (ended_) out_.DropSuffix(end_marker_.size());
}

void JobOutput::Finish() {
  // Stdout that ended while it could still have been the marker was not.
  if (!lead_.empty()) {
    lead_done_ = true;
    std::string held;
    held.swap(lead_);
    Take(engine::StreamId::kStdout, held);
  }
  if (on_output_) {
    live_stderr_.Finish([&](std::string_view b) { Show(engine::StreamId::kStderr, b); });
    if (!end_marker_.empty()) {
      live_stdout_.Finish([&](std::string_view b) { Show(engine::StreamId::kStdout, b); });
    }
    FlushShown();
  }
}

void JobOutput::Show(engine::StreamId stream, std::string_view bytes) {
  uint64_t& used = shown_[stream == engine::StreamId::kStderr ? 1 : 0];
  size_t room = used < cap_ ? static_cast<size_t>(cap_ - used) : 0;
  bytes = bytes.substr(0, std::min(room, bytes.size()));
  if (bytes.empty()) return;
  used += bytes.size();
  if (stream != pending_stream_ || pending_.size() >= kPendingBytes) FlushShown();
  pending_stream_ = stream;
  pending_.append(bytes);
}

void JobOutput::FlushShown() {
  if (pending_.empty()) return;
  on_output_(pending_stream_, pending_);
  pending_.clear();
}

}  // namespace coderunner::isolation
