// LineSplitter: cuts a byte stream, fed in arbitrary chunks, into lines
// ended by '\n' (a '\r' before it is dropped), holding at most one line of
// `max_line_bytes` in memory. A longer line is reported once, as overlong,
// when its '\n' arrives, and its bytes are dropped as they come, never
// buffered whole. Not thread-safe: one reader owns it.
#ifndef CODERUNNER_CLI_LINE_SPLITTER_H_
#define CODERUNNER_CLI_LINE_SPLITTER_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace coderunner::cli {

class LineSplitter {
 public:
  // `on_line` gets each complete line without its "\n" or "\r\n";
  // `on_overlong` is called once for each line longer than
  // `max_line_bytes` (counted without the line ending), in stream order.
  LineSplitter(size_t max_line_bytes, std::function<void(std::string_view line)> on_line,
               std::function<void()> on_overlong);

  // Consumes `chunk`, calling the handlers for the lines it completes.
  void Feed(std::string_view chunk);

  // At the end of the stream: an unterminated last line counts as a line
  // (or as overlong).
  void Finish();

 private:
  void EndLine();

  size_t max_line_bytes_;
  std::function<void(std::string_view)> on_line_;
  std::function<void()> on_overlong_;
  std::string pending_;    // The current line so far, while it fits.
  bool overlong_ = false;  // The current line outgrew the bound: skipping to its end.
};

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_LINE_SPLITTER_H_
