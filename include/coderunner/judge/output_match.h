// OutputMatches: whether a program's output is the expected one, under the
// comparison a judge asks for. Pure; thread-safe.
#ifndef CODERUNNER_JUDGE_OUTPUT_MATCH_H_
#define CODERUNNER_JUDGE_OUTPUT_MATCH_H_

#include <optional>
#include <string_view>

namespace coderunner::judge {

enum class MatchMode {
  // Byte for byte.
  kExact,
  // Line by line, each line's trailing spaces, tabs and carriage returns
  // dropped, and empty lines at the end ignored.
  kTrailingWhitespace,
  // The same sequence of whitespace-separated tokens.
  kTokens,
  // As kTokens, but two tokens that both read as finite numbers are equal
  // within the rule's tolerance.
  kNumbers,
};

// "exact", "trailing_whitespace", "tokens", "numbers".
std::string_view MatchModeName(MatchMode mode);
// Inverse of MatchModeName; nullopt for anything else.
std::optional<MatchMode> ParseMatchMode(std::string_view name);

struct MatchRule {
  MatchMode mode = MatchMode::kTrailingWhitespace;
  // kNumbers: a and b are equal when |a - b| <= abs_tolerance or
  // |a - b| <= rel_tolerance * |b| (b the expected number).
  double abs_tolerance = 1e-6;
  double rel_tolerance = 1e-6;
};

// Whether `actual` is `expected` under `rule`.
bool OutputMatches(std::string_view actual, std::string_view expected, const MatchRule& rule);

}  // namespace coderunner::judge

#endif  // CODERUNNER_JUDGE_OUTPUT_MATCH_H_
