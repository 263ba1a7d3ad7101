#include "coderunner/sessions/marker_cut.h"

namespace coderunner::sessions {
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
    size_t at = held_.find(end_);
    if (at == std::string::npos) break;
    size_t stop = at + end_.size();
    size_t start = held_.rfind(kLineStart, at);
    if (start != std::string::npos && stop - start <= kHoldBytes) {
      out_.Append(std::string_view(held_).substr(0, start));
      marker_ = held_.substr(start, stop - start);
      found_ = true;
      held_.clear();
      return;
    }
    // `end` without a line start before it: ordinary output.
    out_.Append(std::string_view(held_).substr(0, stop));
    held_.erase(0, stop);
  }
  // Keep back only what could still be part of the marker line.
  if (held_.size() > kHoldBytes) {
    size_t commit = held_.size() - kHoldBytes;
    out_.Append(std::string_view(held_).substr(0, commit));
    held_.erase(0, commit);
  }
}

void MarkerCut::Flush() {
  if (!held_.empty()) out_.Append(held_);
  held_.clear();
}

}  // namespace coderunner::sessions
