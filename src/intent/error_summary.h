// SummarizeError: the exception type, message and line of a failed run,
// read from its stderr, for the fix-it prompt and the record.
#ifndef CODERUNNER_INTENT_ERROR_SUMMARY_H_
#define CODERUNNER_INTENT_ERROR_SUMMARY_H_

#include <string>
#include <string_view>

namespace coderunner::intent {

struct ErrorSummary {
  std::string type;     // e.g. "KeyError", "TypeError", "BashError"; "" if unknown.
  std::string message;  // At most 500 bytes; "" if none.
  int line = 0;         // In the model's code (preamble lines subtracted); 0 = unknown.
};

// Reads the uncaught-error report at the end of `stderr_text` (its last
// 64 KiB) of a run of `program_file` (e.g. "main.py"; any path ending in
// "/main.py" matches too):
// - python: the line of the last traceback frame in the program, and the
//   first unindented line after the last frame, "Type: message" or a bare
//   "Type" (SyntaxError reports have the same shape);
// - javascript (Node 20): the "<path>:N" header (with its caret line) if it
//   is the program's, else the first "at ... (<path>:N:C)" frame in the
//   program; the first line after the caret, "Type: message" (a thrown
//   non-error gives type "" and its printed value); without a header, an
//   unindented "XxxError: message" or one a stack frame follows;
// - typescript (tsx): esbuild's first "<path>:N:C: ERROR: message" of the
//   program (a syntax error), type "TransformError"; else as javascript
//   (tsx's source maps keep the program's own line numbers);
// - bash: the first "<path>: line N: message" of the program, type
//   "BashError".
// Anything else: type "", the last non-blank line as the message (Node's
// "Node.js vNN" trailer skipped), line 0. The line is in the model's code,
// N - preamble_lines, or 0 if that is below 1 (the preamble) or unknown.
// Type and message are valid UTF-8 (bad bytes become U+FFFD), at most 100
// and 500 bytes. Never fails. Pure; thread-safe.
ErrorSummary SummarizeError(std::string_view language, std::string_view stderr_text,
                            std::string_view program_file, int preamble_lines);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_ERROR_SUMMARY_H_
