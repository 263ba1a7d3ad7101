#include "coderunner/engine/stream_abort.h"

#include <sys/socket.h>

namespace coderunner::engine {

void StreamAbort::Abort() {
  std::lock_guard<std::mutex> lock(mu_);
  aborted_ = true;
  // shutdown, not close: the fd stays the transport's to close, and the
  // transport's pending recv returns 0 at once. On a socket still
  // connecting it does nothing; the transport's progress check covers that.
  if (fd_ >= 0) shutdown(fd_, SHUT_RDWR);
}

bool StreamAbort::aborted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

bool StreamAbort::Bind(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_) return false;
  fd_ = fd;
  return true;
}

void StreamAbort::Unbind(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ == fd) fd_ = -1;
}

}  // namespace coderunner::engine
