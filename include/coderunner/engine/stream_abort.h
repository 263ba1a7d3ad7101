// StreamAbort: ends a streaming engine request from another thread.
#ifndef CODERUNNER_ENGINE_STREAM_ABORT_H_
#define CODERUNNER_ENGINE_STREAM_ABORT_H_

#include <mutex>

namespace coderunner::engine {

// A handle a caller passes with a streaming request (Transport::Stream) so
// that another thread can end it early, whatever the engine does. Needed
// because Docker 20.10 leaves an attach stream open when the container is
// removed without ever having started: the reader would otherwise hang
// until the request's own timeout.
//
// Abort() shuts the request's socket down (the transfer then ends at once)
// or, if the socket does not exist yet, makes the transport refuse to
// create one. Sticky. Thread-safe; the transport side (Bind/Unbind) is
// called by the transport only.
class StreamAbort {
 public:
  // Ends the request (if running) and any later attempt to start it.
  void Abort();
  bool aborted() const;

  // Transport side: the request's socket `fd` was created. Returns false
  // (the transport must not use the socket) if Abort() came first.
  bool Bind(int fd);
  // Transport side: `fd` is about to be closed; Abort() must not touch it
  // any more (its number may be reused).
  void Unbind(int fd);

 private:
  mutable std::mutex mu_;
  bool aborted_ = false;
  int fd_ = -1;
};

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_STREAM_ABORT_H_
