// ExtractCode: the program in a model's reply.
#ifndef CODERUNNER_INTENT_CODE_EXTRACT_H_
#define CODERUNNER_INTENT_CODE_EXTRACT_H_

#include <string>
#include <string_view>
#include <vector>

namespace coderunner::intent {

// The program in a model's `reply`: the first fenced block whose info
// string's first word names `language` (python: python, py, python3;
// javascript: javascript, js, node, nodejs; typescript: typescript, ts,
// tsx; bash: bash, sh, shell; any case), else the first fenced block, else the whole reply. Fences
// are ``` or ~~~ (3 or more, indented at most 3 spaces; a backtick fence's info string holds no
// backtick), closed by the same character at least as long with nothing after it; an unterminated
// fence runs to the end; a fence indented N spaces takes up to N spaces off its lines; CRLF is read
// as LF. Leading and trailing blank lines are dropped; a non-empty result ends with one '\n';
// whitespace only (or an empty block) gives "". Never fails. Pure; thread-safe.
std::string ExtractCode(std::string_view reply, std::string_view language);

// Every non-empty block of `reply`, read as ExtractCode reads one: those
// naming `language` if any do, else all of them, else the whole reply
// (when it holds no fence). For a reply that may hold a program and its
// checks (verify_checks.h). Pure; thread-safe.
std::vector<std::string> ExtractCodeBlocks(std::string_view reply, std::string_view language);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_CODE_EXTRACT_H_
