// MarkerCut: one stream of a sandbox call, cut at the driver's end marker.
#ifndef CODERUNNER_SANDBOXES_MARKER_CUT_H_
#define CODERUNNER_SANDBOXES_MARKER_CUT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "coderunner/isolation/capped_output.h"

namespace coderunner::sandboxes {

// Keeps a call's output on one stream (capped) until `end` appears, and the
// marker line that `end` closes. Unlike a job's, a sandbox's stream goes on
// after a call: a thread or process the code left behind may keep writing,
// so the marker is found wherever it lands, not only at the very end, and
// whatever follows it is not the call's. Bytes that could still be part of
// the marker line are held back (at most 2 * kHoldBytes plus one Feed), and
// each byte is scanned a bounded number of times however small the writes.
// Not thread-safe.
class MarkerCut {
 public:
  // The longest marker line looked for, bytes.
  static constexpr size_t kHoldBytes = 640;

  // `end`: the bytes the marker line ends with, e.g. "\"eof\":\"<nonce>\"}\n".
  // `cap`: bytes of output kept (more is counted as truncated).
  MarkerCut(std::string end, size_t cap) : end_(std::move(end)), out_(cap) {}

  void Feed(std::string_view bytes);
  bool found() const { return found_; }
  // The whole marker line, from its "\x1e" to `end` (after found()).
  const std::string& marker() const { return marker_; }
  // Commits what is held back (the stream ended without the marker).
  void Flush();
  isolation::CappedOutput& out() { return out_; }

 private:
  std::string end_;
  isolation::CappedOutput out_;
  std::string held_;
  size_t searched_ = 0;  // No `end` starts in held_ before this.
  std::string marker_;
  bool found_ = false;
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_MARKER_CUT_H_
