#include "line_splitter.h"

namespace coderunner::cli {

LineSplitter::LineSplitter(size_t max_line_bytes,
                           std::function<void(std::string_view line)> on_line,
                           std::function<void()> on_overlong)
    : max_line_bytes_(max_line_bytes),
      on_line_(std::move(on_line)),
      on_overlong_(std::move(on_overlong)) {}

void LineSplitter::Feed(std::string_view chunk) {
  while (!chunk.empty()) {
    size_t nl = chunk.find('\n');
    std::string_view part = chunk.substr(0, nl);
    if (!overlong_) {
      // One byte of slack for a '\r' that the line ending may drop.
      if (pending_.size() + part.size() > max_line_bytes_ + 1) {
        overlong_ = true;
        pending_.clear();
        pending_.shrink_to_fit();
      } else {
        pending_.append(part);
      }
    }
    if (nl == std::string_view::npos) return;
    EndLine();
    chunk.remove_prefix(nl + 1);
  }
}

void LineSplitter::Finish() {
  if (overlong_ || !pending_.empty()) EndLine();
}

void LineSplitter::EndLine() {
  if (!overlong_ && !pending_.empty() && pending_.back() == '\r') pending_.pop_back();
  if (overlong_ || pending_.size() > max_line_bytes_) {
    on_overlong_();
  } else {
    on_line_(pending_);
  }
  overlong_ = false;
  pending_.clear();
}

}  // namespace coderunner::cli
