// DetectLanguage: the language an intent names, if any.
#ifndef CODERUNNER_INTENT_LANGUAGE_DETECT_H_
#define CODERUNNER_INTENT_LANGUAGE_DETECT_H_

#include <string>
#include <string_view>

namespace coderunner::intent {

// "typescript", "javascript", "bash" or "python" when `intent` names one as
// a whole word (case-insensitive): typescript, ts; javascript, js, nodejs,
// node.js, "node js", ecmascript; bash, shell, sh; python, python3
// (python3.11, ...), py. Plain "node" does not count (trees have nodes). The
// earliest mention wins, except that TypeScript named anywhere wins over
// JavaScript (a TypeScript program runs on Node.js); ""
// when none is named ("jsonify", "shellfish" and "pythonic" name nothing),
// and the caller uses its default. Never fails. Pure; thread-safe.
std::string DetectLanguage(std::string_view intent);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_LANGUAGE_DETECT_H_
