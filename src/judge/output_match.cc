#include "coderunner/judge/output_match.h"

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace coderunner::judge {
namespace {

struct ModeName {
  MatchMode mode;
  std::string_view name;
};
constexpr ModeName kModeNames[] = {
    {MatchMode::kExact, "exact"},
    {MatchMode::kTrailingWhitespace, "trailing_whitespace"},
    {MatchMode::kTokens, "tokens"},
    {MatchMode::kNumbers, "numbers"},
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// The text without each line's trailing blanks and without empty lines at
// the end.
std::string WithoutTrailingWhitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    size_t keep = line.size();
    while (keep > 0 &&
           (line[keep - 1] == ' ' || line[keep - 1] == '\t' || line[keep - 1] == '\r')) {
      --keep;
    }
    out.append(line.substr(0, keep));
    out.push_back('\n');
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::vector<std::string_view> Tokens(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

// The token as a finite number, when all of it reads as one.
std::optional<double> NumberOf(std::string_view token) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  double value = 0;
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

bool TokensMatch(std::string_view actual, std::string_view expected, const MatchRule& rule) {
  if (actual == expected) return true;
  if (rule.mode != MatchMode::kNumbers) return false;
  std::optional<double> a = NumberOf(actual);
  std::optional<double> b = NumberOf(expected);
  if (!a || !b) return false;
  double diff = std::fabs(*a - *b);
  return diff <= rule.abs_tolerance || diff <= rule.rel_tolerance * std::fabs(*b);
}

}  // namespace

std::string_view MatchModeName(MatchMode mode) {
  for (const ModeName& m : kModeNames) {
    if (m.mode == mode) return m.name;
  }
  return "exact";
}

std::optional<MatchMode> ParseMatchMode(std::string_view name) {
  for (const ModeName& m : kModeNames) {
    if (m.name == name) return m.mode;
  }
  return std::nullopt;
}

bool OutputMatches(std::string_view actual, std::string_view expected, const MatchRule& rule) {
  switch (rule.mode) {
    case MatchMode::kExact:
      return actual == expected;
    case MatchMode::kTrailingWhitespace:
      return WithoutTrailingWhitespace(actual) == WithoutTrailingWhitespace(expected);
    case MatchMode::kTokens:
    case MatchMode::kNumbers:
      break;
  }
  std::vector<std::string_view> a = Tokens(actual);
  std::vector<std::string_view> b = Tokens(expected);
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!TokensMatch(a[i], b[i], rule)) return false;
  }
  return true;
}

}  // namespace coderunner::judge
