// AttachedContainer: a container's attach stream, read on a thread of its
// own, and the wake-ups a job's thread waits for.
#ifndef CODERUNNER_ISOLATION_ATTACHED_CONTAINER_H_
#define CODERUNNER_ISOLATION_ATTACHED_CONTAINER_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "coderunner/common/status.h"
#include "coderunner/engine/containers.h"

namespace coderunner::isolation {

// Attaches to one created container's stdout and stderr (the raw,
// multiplexed stream) and hands every chunk to the current sink. The
// stream closing is the container's completion signal: no /wait, no
// polling (Podman 4.3's /wait takes ~260 ms to answer).
//
// The engine client must outlive this object. The destructor joins the
// reader thread, so the stream must end first: the container exits or is
// removed. Thread-safe: the waits, Cancel and SetSink may be called from any
// thread.
class AttachedContainer {
 public:
  using Clock = std::chrono::steady_clock;
  // Receives stream chunks; false aborts the stream (a malformed frame).
  using Sink = std::function<bool(std::string_view)>;
  enum class Wake { kAttached, kDone, kCancelled, kTimedOut };

  // Starts attaching to container `id` on a new thread. `bound` limits the
  // whole attach call (the engine client fails it past that). `sink` (may
  // be null) receives chunks from the first one on: set here, before the
  // thread starts, no early chunk can arrive with no sink and be dropped.
  AttachedContainer(engine::ContainerClient& containers, std::string id,
                    std::chrono::milliseconds bound, Sink sink = nullptr);
  ~AttachedContainer();
  AttachedContainer(const AttachedContainer&) = delete;
  AttachedContainer& operator=(const AttachedContainer&) = delete;

  // Chunks go to `sink` from now on (called on the reader thread); chunks
  // that arrived with no sink set are counted in unclaimed_bytes() and
  // dropped. The sink must stay valid until the stream is done or another
  // sink replaces it.
  void SetSink(Sink sink);

  // Waits until the stream is established (kAttached), ended (kDone),
  // Cancel was called (kCancelled) or `deadline` passed (kTimedOut).
  Wake WaitAttached(Clock::time_point deadline);
  // Waits until the stream ended (kDone), Cancel was called (kCancelled;
  // only with `wake_on_cancel`) or `deadline` passed (kTimedOut).
  Wake WaitDone(Clock::time_point deadline, bool wake_on_cancel = true);
  // The output is known complete (end markers seen) though the stream is
  // still open: WaitDone answers kDone from now on, until ClearComplete.
  void MarkComplete();
  bool complete() const;
  // The next case of a series is about to start in the container: its own
  // end markers are still to come.
  void ClearComplete();

  // Wakes every waiter with kCancelled (unless the stream is done). Sticky.
  void Cancel();
  // Clears an earlier Cancel (a pooled container handed to a new job).
  void ClearCancel();

  bool done() const;
  // How the attach call ended; OK while it runs.
  Status status() const;
  uint64_t unclaimed_bytes() const;
  const std::string& id() const { return id_; }

  // Ends the attach call now, from any thread, whatever the engine does
  // (Docker leaves the stream of a never-started container open after its
  // removal). Sticky; status() then reports Unavailable "aborted".
  void Abort();

  // Joins the reader thread (the stream must be ending). Idempotent.
  void Join();

  // For after the container's removal: waits up to `grace` for the engine
  // to close the stream, aborts it if it has not, and joins the reader.
  // Pass zero for a container that never started (Docker never closes
  // that stream).
  void EndAfterRemoval(std::chrono::milliseconds grace);

 private:
  bool Deliver(std::string_view chunk);

  engine::ContainerClient& containers_;
  const std::string id_;
  engine::StreamAbort abort_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool attached_ = false;
  bool done_ = false;
  bool complete_ = false;
  bool cancelled_ = false;
  Status status_;
  uint64_t unclaimed_ = 0;
  Sink sink_;
  // Serializes sink calls with SetSink, so a sink is never called after it
  // has been replaced.
  std::mutex sink_mu_;
  std::thread reader_;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_ATTACHED_CONTAINER_H_
