// ExtractCode: the program in a model's reply.
#ifndef CODERUNNER_INTENT_CODE_EXTRACT_H_
#define CODERUNNER_INTENT_CODE_EXTRACT_H_

#include <string>
#include <string_view>

namespace coderunner::intent {

// The first fenced block whose info string names `language` (python: python,
// py, python3; javascript: javascript, js, node, nodejs; bash: bash, sh,
// shell), else the first fenced block, else the whole reply. Fences are ```
// or ~~~ (3 or more, indented at most 3 spaces), closed by the same
// character at least as long; an unterminated fence runs to the end; CRLF is
// read as LF. Leading and trailing blank lines are dropped; a non-empty
// result ends with one '\n'; whitespace only gives "". Pure.
std::string ExtractCode(std::string_view reply, std::string_view language);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_CODE_EXTRACT_H_
