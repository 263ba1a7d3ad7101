#include "coderunner/sandboxes/marker_cut.h"

#include <algorithm>

namespace coderunner::sandboxes {
namespace {

// Every marker line starts so (see src/init/coderunner_init.c) and ends
// with the call's nonce as its last member.
constexpr std::string_view kLineStart =
    "\x1e"
    "coderunner-init ";
constexpr std::string_view kNonceKey = "\"eof\":\"";
constexpr std::string_view kLineEnd = "\"}\n";

bool IsNonceChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '_';
}

}  // namespace

bool MarkerCut::MarkerLineEndingAt(size_t stop, size_t* start, std::string_view* nonce) const {
  const std::string_view held(held_);
  const size_t nonce_end = stop - kLineEnd.size();
  size_t nonce_start = nonce_end;
  while (nonce_start > 0 && nonce_end - nonce_start < kHoldBytes &&
         IsNonceChar(held[nonce_start - 1])) {
    --nonce_start;
  }
  if (nonce_start == nonce_end || nonce_start < kNonceKey.size() ||
      held.substr(nonce_start - kNonceKey.size(), kNonceKey.size()) != kNonceKey) {
    return false;
  }
  // The line start is looked for only where a marker line could begin: on
  // the same line, at most kHoldBytes before its end.
  const size_t key = nonce_start - kNonceKey.size();
  const size_t window = stop > kHoldBytes ? stop - kHoldBytes : 0;
  if (window > key) return false;
  std::string_view line = held.substr(window, key - window);
  const size_t newline = line.rfind('\n');
  if (newline != std::string_view::npos) line.remove_prefix(newline + 1);
  const size_t at = line.rfind(kLineStart);
  if (at == std::string_view::npos) return false;
  *start = key - line.size() + at;
  *nonce = held.substr(nonce_start, nonce_end - nonce_start);
  return true;
}

void MarkerCut::TrackLineStarts(size_t from) {
  for (size_t i = from; i < held_.size(); ++i) {
    if (held_[i] == '\n') open_line_ = std::string::npos;
    if (held_[i] == '\x1e') open_line_ = i;
  }
}

void MarkerCut::EraseHeld(size_t n) {
  held_.erase(0, n);
  searched_ -= std::min(searched_, n);
  // A line start committed with what came before it is too far back to
  // begin a marker line (MarkerLineEndingAt looks back kHoldBytes at most).
  open_line_ =
      open_line_ == std::string::npos || open_line_ < n ? std::string::npos : open_line_ - n;
}

void MarkerCut::Feed(std::string_view bytes) {
  if (found_ || bytes.empty()) return;
  const size_t fed_from = held_.size();
  held_.append(bytes);
  TrackLineStarts(fed_from);
  for (;;) {
    const size_t at = held_.find(kLineEnd, searched_);
    if (at == std::string::npos) break;
    const size_t stop = at + kLineEnd.size();
    searched_ = stop;
    size_t start = 0;
    std::string_view nonce;
    if (!MarkerLineEndingAt(stop, &start, &nonce)) continue;  // Ordinary output.
    if (nonce == nonce_) {
      out_.Append(std::string_view(held_).substr(0, start));
      marker_ = held_.substr(start, stop - start);
      found_ = true;
      held_.clear();
      open_line_ = std::string::npos;
      return;
    }
    // An earlier call's end: nothing up to here is this call's.
    out_ = isolation::CappedOutput(cap_);
    EraseHeld(stop);
    searched_ = 0;
  }
  // Only the last kLineEnd.size() - 1 bytes can begin a line end still to come.
  searched_ = std::max(
      searched_, held_.size() >= kLineEnd.size() ? held_.size() - kLineEnd.size() + 1 : size_t{0});
  // Keep back what could still be part of a marker line, committing the
  // rest once twice as much is held (a move per kHoldBytes, not per write).
  if (held_.size() > 2 * kHoldBytes) {
    size_t commit = held_.size() - kHoldBytes;
    out_.Append(std::string_view(held_).substr(0, commit));
    EraseHeld(commit);
  }
}

void MarkerCut::Flush() {
  if (!held_.empty()) out_.Append(held_);
  held_.clear();
  searched_ = 0;
  open_line_ = std::string::npos;
}

size_t MarkerCut::settled_size() const {
  const size_t kept = out_.kept().size();
  if (out_.truncated() || kept >= cap_) return kept;
  const size_t held = open_line_ == std::string::npos ? held_.size() : open_line_;
  return kept + std::min(held, cap_ - kept);
}

std::string MarkerCut::Settled(size_t from) const {
  const size_t end = settled_size();
  if (from >= end) return "";
  const std::string& kept = out_.kept();
  std::string out;
  if (from < kept.size()) out = kept.substr(from);
  const size_t held_from = from > kept.size() ? from - kept.size() : 0;
  out.append(held_, held_from, end - kept.size() - held_from);
  return out;
}

}  // namespace coderunner::sandboxes
