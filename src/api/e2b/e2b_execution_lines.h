// The NDJSON lines of one runCode call (POST /e2b/execute) as it runs:
// stdout and stderr line by line as the interpreter prints them, then what
// only the call's end tells: its rich results, its error, its execution
// count. Private to src/api.
#ifndef CODERUNNER_API_E2B_E2B_EXECUTION_LINES_H_
#define CODERUNNER_API_E2B_E2B_EXECUTION_LINES_H_

#include <string>
#include <string_view>

#include "coderunner/common/bounded_json.h"
#include "coderunner/sandboxes/sandbox_manager.h"

namespace coderunner::api::e2b {

// Not thread-safe.
class ExecutionLines {
 public:
  // The first line of a traceback the Python driver writes to stderr for
  // the exception that ends a cell (or a cell that does not compile):
  // from such a line on, stderr waits for the call's end, which carries
  // the traceback in its error line instead (as E2B's does).
  static constexpr std::string_view kTracebackStarts[] = {"Traceback (most recent call last):",
                                                          "  File \"<cell>\""};

  explicit ExecutionLines(JsonBounds bounds) : bounds_(bounds) {}

  // A piece of the call's output (sandboxes::CallOutputFn): the lines it
  // completes, "stdout" or "stderr" {text}, each a whole line of output;
  // "" when it completes none. A stdout line loses the driver's result
  // records (which the end reports as results), a line that may still
  // become one waits; stderr from a traceback's first line on waits.
  std::string Piece(bool is_stderr, std::string_view bytes);

  // The call's end: the output not sent yet (what its answer holds past
  // what Piece sent; all of it, should that not begin with what was sent),
  // its results, its error (its traceback left out of stderr) or timeout,
  // then number_of_executions. Never an empty line.
  std::string End(const sandboxes::ExecuteOutcome& outcome);
  // A call that failed after lines were sent (its sandbox went away): its
  // error line.
  std::string Failed(const Status& status) const;

 private:
  struct Stream {
    std::string line;      // The line being assembled.
    std::string sent;      // Every byte sent, in order.
    bool holding = false;  // stderr: a traceback began; all waits for End.
  };
  // `line` (a complete one) as its stream's next line(s).
  std::string Complete(bool is_stderr, Stream& s, std::string line);
  // What of `final_text` `s` has not sent, as a line of `type`.
  std::string Rest(const char* type, const Stream& s, const std::string& final_text) const;

  JsonBounds bounds_;
  Stream out_;
  Stream err_;
};

}  // namespace coderunner::api::e2b

#endif  // CODERUNNER_API_E2B_E2B_EXECUTION_LINES_H_
