#include "console.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "api_client.h"
#include "exit_codes.h"

namespace coderunner::cli {
namespace {

// Set from a signal handler: lock-free, so async-signal-safe.
std::atomic<bool> interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void OnInterrupt(int) { interrupted.store(true); }

void WriteFd(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // A closed pipe: nobody is reading any more.
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

StatusOr<std::string> ReadInput(const std::string& path) {
  int fd = path == "-" ? 0 : open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string why = "cannot read " + path + ": " + strerror(err);
    return err == ENOENT ? NotFoundError(why, kReasonUsage)
                         : InvalidArgumentError(why, kReasonUsage);
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      if (fd != 0) close(fd);
      return InvalidArgumentError("cannot read " + path + ": " + strerror(err), kReasonUsage);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  if (fd != 0) close(fd);
  return out;
}

void WriteOut(std::string_view bytes) { WriteFd(1, bytes); }
void WriteErr(std::string_view bytes) { WriteFd(2, bytes); }

int ReportError(const Status& status) {
  std::string line = "coderunner: " + status.message();
  const std::string& reason = status.reason();
  // The server's error code helps scripts and bug reports; the generic
  // ones add nothing to the message.
  bool generic = reason.empty() || reason == kReasonUsage || reason == kReasonHttpError ||
                 reason == StatusCodeName(status.code());
  if (!generic) line += " (" + reason + ")";
  WriteErr(line + "\n");
  return reason == kReasonUsage ? kExitUsage : kExitError;
}

void CatchInterrupts() {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

const std::atomic<bool>* InterruptFlag() { return &interrupted; }

bool StderrIsTty() { return isatty(2) == 1; }

Spinner::Spinner(bool enabled, std::string label)
    : enabled_(enabled), start_(std::chrono::steady_clock::now()), label_(std::move(label)) {
  if (enabled_) thread_ = std::thread([this] { Loop(); });
}

Spinner::~Spinner() { Stop(); }

void Spinner::SetLabel(std::string label) {
  std::lock_guard<std::mutex> lock(mu_);
  label_ = std::move(label);
}

void Spinner::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
    WriteErr("\r\033[K");
  }
}

void Spinner::Print(const std::string& line) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  WriteErr("\r\033[K" + line);
}

void Spinner::Loop() {
  static const char* kFrames[] = {"|", "/", "-", "\\"};
  std::unique_lock<std::mutex> lock(mu_);
  for (int frame = 0; !stop_; ++frame) {
    auto secs =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start_)
            .count();
    WriteErr("\r\033[K" + std::string(kFrames[frame % 4]) + " " + label_ + " " +
             std::to_string(secs) + "s");
    cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; });
  }
}

}  // namespace coderunner::cli
