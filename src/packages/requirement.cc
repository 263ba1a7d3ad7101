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

bool IsNpmNameChar(char c) { return IsAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }
bool IsNpmRangeChar(char c) {
  return IsAlnum(c) || c == '.' || c == '*' || c == '+' || c == '^' || c == '~' || c == '<' ||
         c == '>' || c == '=' || c == '|' || c == '-' || c == ' ';
}

// One part of an npm name: a scope's or the package's own. It starts with
// a letter or digit, so that no name reads as an option ("--registry").
bool IsNpmNamePart(std::string_view part) {
  if (part.empty() || !IsAlnum(part.front())) return false;
  for (char c : part) {
    if (!IsNpmNameChar(c)) return false;
  }
  return true;
}

// The longest npm name: the registry's own limit.
constexpr size_t kMaxNpmNameBytes = 214;

}  // namespace

const char* EcosystemName(Ecosystem ecosystem) {
  return ecosystem == Ecosystem::kNpm ? "npm" : "python";
}

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

StatusOr<Requirement> ParseNpmRequirement(std::string_view text) {
  if (text.empty()) return Invalid(text, "it is empty");
  if (text.size() > kMaxRequirementBytes) {
    return Invalid(text.substr(0, 40), "longer than " + std::to_string(kMaxRequirementBytes));
  }
  // "@scope/name@range": the name ends at the first "@" after its start.
  size_t at = text.find('@', 1);
  std::string_view name = text.substr(0, at);
  std::string_view range = at == std::string_view::npos ? "" : text.substr(at + 1);
  std::string_view own = name;
  if (name.front() == '@') {
    size_t slash = name.find('/');
    if (slash == std::string_view::npos || !IsNpmNamePart(name.substr(1, slash - 1))) {
      return Invalid(text, "a scoped name is @scope/name");
    }
    own = name.substr(slash + 1);
  }
  if (!IsNpmNamePart(own) || name.size() > kMaxNpmNameBytes) {
    return Invalid(text, "a name is letters, digits, '-', '.', '_' and '~'");
  }
  if (at != std::string_view::npos) {
    bool ok = !range.empty() && range.front() != ' ' && range.back() != ' ' &&
              range.find("  ") == std::string_view::npos;
    for (char c : range) ok = ok && IsNpmRangeChar(c);
    if (!ok) return Invalid(text, "after '@' only a version range such as 4, ^1.2 or >=1 <2");
  }
  return Requirement{std::string(name),
                     at == std::string_view::npos ? "" : "@" + std::string(range)};
}

StatusOr<Requirement> ParseRequirementOf(Ecosystem ecosystem, std::string_view text) {
  return ecosystem == Ecosystem::kNpm ? ParseNpmRequirement(text) : ParseRequirement(text);
}

}  // namespace coderunner::packages
