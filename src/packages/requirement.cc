#include "coderunner/packages/requirement.h"

#include <array>
#include <cctype>

namespace coderunner::packages {
namespace {

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsNameInner(char c) { return IsAlnum(c) || c == '.' || c == '-' || c == '_'; }
bool IsVersionChar(char c) {
  return IsAlnum(c) || c == '.' || c == '*' || c == '+' || c == '!' || c == '_' || c == '-';
}

// Longest first, so that "===" is not read as "==" and "=".
constexpr std::array<std::string_view, 8> kOperators = {
    "===", "==", "!=", "<=", ">=", "~=", "<", ">"};

Status Invalid(std::string_view text, std::string_view why) {
  return InvalidArgumentError(
      "package '" + std::string(text) + "' is not a requirement: " + std::string(why),
      kReasonInvalidPackage);
}

// One clause at the start of `rest`: an operator and a version. Returns its
// length, or 0.
size_t ClauseLength(std::string_view rest) {
  for (std::string_view op : kOperators) {
    if (rest.substr(0, op.size()) != op) continue;
    size_t end = op.size();
    while (end < rest.size() && IsVersionChar(rest[end])) ++end;
    return end > op.size() ? end : 0;
  }
  return 0;
}

}  // namespace

std::string NormalizeProjectName(std::string_view name) {
  std::string out;
  bool in_run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_run) out.push_back('-');
      in_run = true;
      continue;
    }
    in_run = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

StatusOr<Requirement> ParseRequirement(std::string_view text) {
  if (text.empty()) return Invalid(text, "it is empty");
  if (text.size() > kMaxRequirementBytes) {
    return Invalid(text.substr(0, 40), "longer than " + std::to_string(kMaxRequirementBytes));
  }
  size_t name_end = 0;
  while (name_end < text.size() && IsNameInner(text[name_end])) ++name_end;
  std::string_view name = text.substr(0, name_end);
  if (name.empty() || !IsAlnum(name.front()) || !IsAlnum(name.back())) {
    return Invalid(text, "a name starts and ends with a letter or digit");
  }
  std::string_view rest = text.substr(name_end);
  std::string_view specifier = rest;
  while (!rest.empty()) {
    size_t clause = ClauseLength(rest);
    if (clause == 0) {
      return Invalid(text, "after the name only version clauses such as ==1.2 or >=1,<2");
    }
    rest.remove_prefix(clause);
    if (rest.empty()) break;
    if (rest.front() != ',' || rest.size() == 1) return Invalid(text, "clauses are joined by ','");
    rest.remove_prefix(1);
  }
  return Requirement{NormalizeProjectName(name), std::string(specifier)};
}

}  // namespace coderunner::packages
