#include "coderunner/sandboxes/marker_cut.h"

#include <algorithm>

namespace coderunner::sandboxes {
namespace {

// Every marker line starts so (see src/init/coderunner_init.c).
constexpr std::string_view kLineStart =
    "\x1e"
    "coderunner-init ";

}  // namespace

void MarkerCut::Feed(std::string_view bytes) {
  if (found_ || bytes.empty()) return;
  held_.append(bytes);
  for (;;) {
    size_t at = held_.find(end_, searched_);
    if (at == std::string::npos) break;
    size_t stop = at + end_.size();
    // The line start is looked for only where a marker line could begin.
    size_t from = stop > kHoldBytes ? stop - kHoldBytes : 0;
    size_t start = std::string_view(held_).substr(from, at - from).rfind(kLineStart);
    if (start != std::string_view::npos) {
      start += from;
      out_.Append(std::string_view(held_).substr(0, start));
      marker_ = held_.substr(start, stop - start);
      found_ = true;
      held_.clear();
      return;
    }
    // `end` without a line start before it: ordinary output.
    out_.Append(std::string_view(held_).substr(0, stop));
    held_.erase(0, stop);
    searched_ = 0;
  }
  // Only the last end_.size() - 1 bytes can begin an `end` still to come.
  searched_ = held_.size() >= end_.size() ? held_.size() - end_.size() + 1 : 0;
  // Keep back what could still be part of the marker line, committing the
  // rest once twice as much is held (a move per kHoldBytes, not per write).
  if (held_.size() > 2 * kHoldBytes) {
    size_t commit = held_.size() - kHoldBytes;
    out_.Append(std::string_view(held_).substr(0, commit));
    held_.erase(0, commit);
    searched_ -= std::min(searched_, commit);
  }
}

void MarkerCut::Flush() {
  if (!held_.empty()) out_.Append(held_);
  held_.clear();
  searched_ = 0;
}

}  // namespace coderunner::sandboxes
