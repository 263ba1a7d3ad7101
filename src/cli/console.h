// Console helpers shared by the CLI's commands: reading the program and
// files, writing outputs byte for byte, reporting errors, and the spinner
// shown on a terminal during long waits. Not for the service.
#ifndef CODERUNNER_CLI_CONSOLE_H_
#define CODERUNNER_CLI_CONSOLE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "coderunner/common/status.h"

namespace coderunner::cli {

// The whole content of `path`, or of our stdin for "-". NotFound /
// InvalidArgument naming the path when it cannot be read.
StatusOr<std::string> ReadInput(const std::string& path);

// Writes `bytes` to fd 1 or 2 exactly (retrying short writes). Not
// synchronized with iostreams: use one or the other for a stream.
void WriteOut(std::string_view bytes);
void WriteErr(std::string_view bytes);

// Prints "coderunner: <message>" (and the reason, when it is not a generic
// one) to stderr as one line, and returns kExitError (125), or kExitUsage
// (2) for a status with reason "usage".
int ReportError(const Status& status);

// Makes SIGINT and SIGTERM set a flag instead of ending the process, so a
// command can cancel its job before it exits. Idempotent; call from the
// main thread before waiting.
void CatchInterrupts();
// The flag CatchInterrupts sets (false until a signal arrives). Lives for
// the whole process.
const std::atomic<bool>* InterruptFlag();

// True when fd 2 is a terminal: only then are progress lines drawn.
bool StderrIsTty();

// A one-line "⠋ <label> 3s" spinner redrawn on stderr every 100 ms while
// it lives (when `enabled`), erased by Stop or the destructor. The label
// may change at any time. Thread-safe.
class Spinner {
 public:
  Spinner(bool enabled, std::string label);
  ~Spinner();
  Spinner(const Spinner&) = delete;
  Spinner& operator=(const Spinner&) = delete;

  void SetLabel(std::string label);
  // Erases the line and stops redrawing; idempotent.
  void Stop();
  // Erases the line, prints `line` (with its own '\n') on stderr above the
  // spinner, and carries on; without a terminal, does nothing.
  void Print(const std::string& line);

 private:
  void Loop();

  bool enabled_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string label_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_CONSOLE_H_
