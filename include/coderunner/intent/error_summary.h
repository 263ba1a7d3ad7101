// SummarizeError: the exception type, message and line of a failed run,
// read from its stderr, for the fix-it prompt and the record.
#ifndef CODERUNNER_INTENT_ERROR_SUMMARY_H_
#define CODERUNNER_INTENT_ERROR_SUMMARY_H_

#include <string>
#include <string_view>

namespace coderunner::intent {

struct ErrorSummary {
  std::string type;     // e.g. "KeyError", "TypeError", "BashError"; "" if unknown.
  std::string message;  // At most 500 bytes.
  int line = 0;         // In the model's code (preamble lines subtracted); 0 = unknown.
};

// python: the last traceback frame in `program_file` (any path ending in
// "/<program_file>") and the final "Type: message" line, SyntaxError
// included. javascript (Node 20): the "<path>:N" header or the first stack
// frame in the program, and the "XxxError: message" line. bash:
// "<path>: line N: message" (type "BashError"). Otherwise the type is ""
// and the message the last non-empty line. A line inside the preamble
// (N <= preamble_lines) is reported as 0. Pure.
ErrorSummary SummarizeError(std::string_view language, std::string_view stderr_text,
                            std::string_view program_file, int preamble_lines);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_ERROR_SUMMARY_H_
