// JobOutput: a job's attach stream turned into capped stdout and stderr,
// with live observers.
#ifndef CODERUNNER_ISOLATION_JOB_OUTPUT_H_
#define CODERUNNER_ISOLATION_JOB_OUTPUT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "coderunner/engine/stream_demux.h"
#include "coderunner/isolation/capped_output.h"
#include "coderunner/isolation/init_trailer.h"

namespace coderunner::isolation {

// Demultiplexes the raw stream into two CappedOutputs of `cap` bytes each.
// `on_output` (may be empty) sees stdout as it comes and stderr without
// coderunner-init's trailer, each only up to the cap. It is called at most
// once per stream switch and kPendingBytes within one Feed (plus once in
// Finish), not once per engine frame: a job that writes one byte at a time
// costs one call per chunk of the attach stream, not one per byte. Feed
// runs on the attach thread; Finish and the accessors only after the
// stream has ended. Not thread-safe beyond that hand-over.
class JobOutput {
 public:
  // Output held for `on_output` within one Feed, at most, bytes.
  static constexpr size_t kPendingBytes = 64 << 10;
  using Observer = std::function<void(engine::StreamId, std::string_view)>;
  JobOutput(uint64_t cap, Observer on_output);

  // Pooled jobs: the output is complete once stdout ends with
  // StdoutEndMarker(nonce) and stderr with a trailer whose eof is `nonce`;
  // `on_end` is then called once (on the feeding thread). Stdout observers
  // then never see the marker. Call before the first Feed.
  void ExpectEnd(std::string nonce, std::function<void()> on_end);
  // The end markers were both seen.
  bool ended() const { return ended_; }
  // Removes the stdout end marker from the kept stdout (after ended()).
  void DropStdoutMarker();

  // One chunk of the raw stream; false if it is malformed.
  bool Feed(std::string_view chunk);
  // The stream ended: observers get what the trailer filter still held.
  void Finish();

  CappedOutput& out() { return out_; }
  CappedOutput& err() { return err_; }

 private:
  // One demultiplexed piece: kept, and shown to on_output_.
  void Take(engine::StreamId stream, std::string_view bytes);
  // Stdout of a pooled job: a leading kPrestartReadyMarker is dropped;
  // bytes that may still begin it are held until they cannot.
  void TakeStdout(std::string_view bytes);
  // Queues `bytes` (after the cap) for on_output_.
  void Show(engine::StreamId stream, std::string_view bytes);
  // Hands what Show queued to on_output_ in one call.
  void FlushShown();

  uint64_t cap_;
  Observer on_output_;
  CappedOutput out_;
  CappedOutput err_;
  uint64_t shown_[2] = {0, 0};
  std::string pending_;  // Shown output not yet handed to on_output_.
  engine::StreamId pending_stream_ = engine::StreamId::kStdout;
  TrailerFilter live_stderr_;
  TrailerFilter live_stdout_;  // Used only with ExpectEnd.
  std::string end_marker_;     // "" unless ExpectEnd.
  std::string nonce_;
  std::function<void()> on_end_;
  bool ended_ = false;
  std::string lead_;        // Stdout held while it may be the ready marker.
  bool lead_done_ = false;  // Stdout's start is past the marker (or without one).
  engine::StreamDemuxer demux_;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_JOB_OUTPUT_H_
