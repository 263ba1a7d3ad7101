// One line of a model's reply or of a program's output, as the intent
// module's parsers (code_extract.cc, error_summary.cc) read it.
#ifndef CODERUNNER_INTENT_LINE_TEXT_H_
#define CODERUNNER_INTENT_LINE_TEXT_H_

#include <string_view>

namespace coderunner::intent {

// Nothing but spaces and tabs (or nothing at all).
inline bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_LINE_TEXT_H_
