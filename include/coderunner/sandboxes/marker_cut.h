// MarkerCut: one stream of a sandbox call, cut at the driver's end marker.
#ifndef CODERUNNER_SANDBOXES_MARKER_CUT_H_
#define CODERUNNER_SANDBOXES_MARKER_CUT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "coderunner/isolation/capped_output.h"

namespace coderunner::sandboxes {

// Keeps a call's output on one stream (capped) until its end marker appears,
// and the marker line. Unlike a job's, a sandbox's stream goes on after a
// call: a thread or process the code left behind may keep writing, so the
// marker is found wherever it lands, not only at the very end, and whatever
// follows it is not the call's. Before it, the stream may still carry the
// end of an earlier call the service never read to its end (it was killed
// or restarted mid-call, and the driver finished that call before taking
// this one): a complete marker line with another nonce ends what is not
// this call's, and everything up to it is dropped. Bytes that could still
// be part of a marker line are held back (at most 2 * kHoldBytes plus one
// Feed), and each byte is scanned a bounded number of times however small
// the writes. Not thread-safe.
class MarkerCut {
 public:
  // The longest marker line looked for, bytes.
  static constexpr size_t kHoldBytes = 640;

  // `nonce`: the call's, which ends its marker lines as "\"eof\":\"<nonce>\"}\n".
  // `cap`: bytes of output kept (more is counted as truncated).
  MarkerCut(std::string nonce, size_t cap) : nonce_(std::move(nonce)), cap_(cap), out_(cap) {}

  void Feed(std::string_view bytes);
  bool found() const { return found_; }
  // The whole marker line, from its "\x1e" to `end` (after found()).
  const std::string& marker() const { return marker_; }
  // Commits what is held back (the stream ended without the marker).
  void Flush();
  // The call's output so far that no marker line can still take back, for
  // a caller that streams it as it comes: what out() keeps, then what is
  // held back before the last "\x1e" no newline follows (only there may a
  // marker line still begin), within the cap. It grows with each Feed, but
  // starts over, from 0, when an earlier call's end drops what came before
  // it. settled_size(): its length; Settled(from): its bytes from `from`.
  size_t settled_size() const;
  std::string Settled(size_t from) const;
  isolation::CappedOutput& out() { return out_; }

 private:
  // Where the marker line that ends at held_[stop] starts, and its nonce;
  // false if no marker line ends there.
  bool MarkerLineEndingAt(size_t stop, size_t* start, std::string_view* nonce) const;

  std::string nonce_;
  size_t cap_;
  isolation::CappedOutput out_;
  // Held bytes [0, size()) are scanned for "\x1e" and "\n" once each.
  void TrackLineStarts(size_t from);
  // Forgets held_'s first `n` bytes (committed or dropped).
  void EraseHeld(size_t n);

  std::string held_;
  size_t searched_ = 0;  // No marker line ends in held_ before this.
  // Where in held_ a marker line may still begin: its last "\x1e" that no
  // newline follows; npos for none.
  size_t open_line_ = std::string::npos;
  std::string marker_;
  bool found_ = false;
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_MARKER_CUT_H_
