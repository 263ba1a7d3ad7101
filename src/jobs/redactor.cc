#include "coderunner/jobs/redactor.h"

#include <array>
#include <cstddef>
#include <optional>

namespace coderunner::jobs {
namespace {

// A single left-to-right pass. At each position the matchers below are tried
// (dispatched on the current character); a matcher either fails after
// looking at a bounded number of characters, or succeeds and the scan resumes
// after everything it looked at. So no character is examined more than a
// constant number of times and the whole pass is linear.

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsUpperAlnum(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool IsQuote(char c) { return c == '"' || c == '\'' || c == '`'; }

// RFC 6750 b64token characters.
bool IsBearerTokenChar(char c) {
  return IsAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' ||
         c == '=';
}
bool IsKeyChar(char c) { return IsAlnum(c) || c == '-' || c == '_'; }
bool IsBase64Char(char c) { return IsAlnum(c) || c == '+' || c == '/'; }

// Characters that end an unquoted value of a key=value pair.
bool EndsUnquotedValue(char c) {
  switch (c) {
    case ' ':
    case '\t':
    case '\r':
    case '\n':
    case '\v':
    case '\f':
    case ',':
    case ';':
    case '&':
    case '"':
    case '\'':
    case '`':
    case '\\':
    case '<':
    case '>':
    case ')':
    case ']':
    case '}':
      return true;
    default:
      return false;
  }
}

// True if `text` at `pos` starts with `word`, ignoring ASCII case (`word` is
// lower case).
bool StartsWithNoCase(std::string_view text, size_t pos, std::string_view word) {
  if (text.size() - pos < word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k) {
    if (Lower(text[pos + k]) != word[k]) return false;
  }
  return true;
}

// A word starts at `pos` if the previous character is not a letter or digit.
bool AtWordStart(std::string_view text, size_t pos) { return pos == 0 || !IsAlnum(text[pos - 1]); }

size_t SkipBlanks(std::string_view text, size_t pos) {
  while (pos < text.size() && IsBlank(text[pos])) ++pos;
  return pos;
}

// A match: text[start, end) is replaced with kRedacted and the scan resumes
// at `end`. `start` is at or after the position the matcher was tried at; the
// text before it (e.g. "Bearer ", "password=\"") is kept.
struct Match {
  size_t start;
  size_t end;
};

// "Bearer <token>". The word and the blanks after it are kept. A short
// all-letter token ("the bearer of bad news") is taken for prose.
std::optional<Match> MatchBearer(std::string_view text, size_t pos) {
  constexpr std::string_view kWord = "bearer";
  constexpr size_t kMinProseLength = 8;
  if (!AtWordStart(text, pos) || !StartsWithNoCase(text, pos, kWord)) return std::nullopt;
  size_t p = pos + kWord.size();
  if (p >= text.size() || !IsBlank(text[p])) return std::nullopt;
  size_t start = SkipBlanks(text, p);
  size_t end = start;
  bool all_letters = true;
  while (end < text.size() && IsBearerTokenChar(text[end])) {
    all_letters = all_letters && IsLetter(text[end]);
    ++end;
  }
  if (end == start) return std::nullopt;
  if (all_letters && end - start < kMinProseLength) return std::nullopt;
  return Match{start, end};
}

// "sk-" followed by 16+ key characters ("sk-proj-...", "sk-ant-api03-...").
std::optional<Match> MatchSkKey(std::string_view text, size_t pos) {
  constexpr std::string_view kPrefix = "sk-";
  constexpr size_t kMinKeyChars = 16;
  if (text.compare(pos, kPrefix.size(), kPrefix) != 0) return std::nullopt;
  // "task-...", "disk-..." and "my_sk-..." are not keys.
  if (pos > 0 && IsKeyChar(text[pos - 1])) return std::nullopt;
  size_t end = pos + kPrefix.size();
  while (end < text.size() && IsKeyChar(text[end])) ++end;
  if (end - pos - kPrefix.size() < kMinKeyChars) return std::nullopt;
  return Match{pos, end};
}

// AWS access key ids: AKIA/ASIA + exactly 16 upper-case alphanumerics.
std::optional<Match> MatchAwsKeyId(std::string_view text, size_t pos) {
  constexpr size_t kLength = 20;
  if (text.size() - pos < kLength) return std::nullopt;
  std::string_view prefix = text.substr(pos, 4);
  if (prefix != "AKIA" && prefix != "ASIA") return std::nullopt;
  if (!AtWordStart(text, pos)) return std::nullopt;
  for (size_t k = 4; k < kLength; ++k) {
    if (!IsUpperAlnum(text[pos + k])) return std::nullopt;
  }
  size_t end = pos + kLength;
  if (end < text.size() && IsAlnum(text[end])) return std::nullopt;
  return Match{pos, end};
}

// After a key name: an optional closing quote (also \"), blanks, '=' or ':'
// (not "==" or "::"), blanks. Returns the position after them.
std::optional<size_t> SkipSeparator(std::string_view text, size_t p) {
  if (p < text.size() && text[p] == '\\' && p + 1 < text.size() && IsQuote(text[p + 1])) {
    p += 2;
  } else if (p < text.size() && IsQuote(text[p])) {
    ++p;
  }
  p = SkipBlanks(text, p);
  if (p >= text.size() || (text[p] != '=' && text[p] != ':')) return std::nullopt;
  char sep = text[p++];
  if (p < text.size() && text[p] == sep) return std::nullopt;  // "==", "::".
  return SkipBlanks(text, p);
}

// AWS secret keys: 40 base64 characters after "aws_secret_access_key" or
// "secret_access_key" and '=' or ':' (case-insensitive, optionally quoted).
std::optional<Match> MatchAwsSecret(std::string_view text, size_t pos) {
  constexpr std::string_view kKey = "secret_access_key";
  constexpr size_t kLength = 40;
  // "aws_secret_access_key" is covered too: '_' is not alphanumeric.
  if (!AtWordStart(text, pos) || !StartsWithNoCase(text, pos, kKey)) return std::nullopt;
  std::optional<size_t> value = SkipSeparator(text, pos + kKey.size());
  if (!value) return std::nullopt;
  size_t start = *value;
  if (start < text.size() && IsQuote(text[start])) ++start;
  size_t end = start;
  while (end < text.size() && end - start <= kLength && IsBase64Char(text[end])) ++end;
  if (end - start != kLength) return std::nullopt;
  return Match{start, end};
}

// "-----BEGIN [LABEL ]PRIVATE KEY-----" through the matching END line, or to
// the end of the text if the block is cut.
std::optional<Match> MatchPrivateKey(std::string_view text, size_t pos) {
  constexpr std::string_view kBegin = "-----BEGIN ";
  constexpr std::string_view kDashes = "-----";
  constexpr std::string_view kPrivateKey = "PRIVATE KEY";
  constexpr size_t kMaxTypeLength = 64;  // "ENCRYPTED PRIVATE KEY", "OPENSSH PRIVATE KEY", ...
  if (text.compare(pos, kBegin.size(), kBegin) != 0) return std::nullopt;
  size_t type_start = pos + kBegin.size();
  size_t type_end = type_start;
  while (type_end < text.size() && type_end - type_start < kMaxTypeLength &&
         (IsUpperAlnum(text[type_end]) || text[type_end] == ' ')) {
    ++type_end;
  }
  std::string_view type = text.substr(type_start, type_end - type_start);
  if (text.compare(type_end, kDashes.size(), kDashes) != 0) return std::nullopt;
  if (type.size() < kPrivateKey.size() ||
      type.substr(type.size() - kPrivateKey.size()) != kPrivateKey)
    return std::nullopt;
  if (type.size() > kPrivateKey.size() && type[type.size() - kPrivateKey.size() - 1] != ' ')
    return std::nullopt;
  std::string end_line = "-----END ";
  end_line.append(type);
  end_line.append(kDashes);
  // The needle is short (bounded above), so this search is linear, and
  // either way the scan resumes after everything it looked at.
  size_t found = text.find(end_line, type_end + kDashes.size());
  size_t end = found == std::string_view::npos ? text.size() : found + end_line.size();
  return Match{pos, end};
}

// The values of password=, passwd=, pwd=, token=, secret=, api_key=, apikey=
// (also with ':', blanks and quotes; "DB_PASSWORD", "access_token" count).
std::optional<Match> MatchKeyValue(std::string_view text, size_t pos) {
  static constexpr std::array<std::string_view, 7> kKeys = {"password", "passwd",  "pwd",   "token",
                                                            "secret",   "api_key", "apikey"};
  if (!AtWordStart(text, pos)) return std::nullopt;
  std::optional<size_t> value;
  for (std::string_view key : kKeys) {
    if (StartsWithNoCase(text, pos, key)) {
      value = SkipSeparator(text, pos + key.size());
      break;  // No key is a prefix of another one that could also match here.
    }
  }
  if (!value || *value >= text.size()) return std::nullopt;
  size_t p = *value;
  // Quoted: "x", 'x', `x`, and \"x\" (JSON inside a JSON string). The value
  // ends at the matching quote, or at the end of the line if there is none.
  bool escaped_quote = text[p] == '\\' && p + 1 < text.size() && IsQuote(text[p + 1]);
  if (escaped_quote || IsQuote(text[p])) {
    char quote = escaped_quote ? text[p + 1] : text[p];
    size_t start = p + (escaped_quote ? 2 : 1);
    size_t end = start;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') {
      if (escaped_quote) {
        if (text[end] == '\\' && end + 1 < text.size() && text[end + 1] == quote) break;
      } else {
        if (text[end] == quote) break;
        if (text[end] == '\\' && end + 1 < text.size() && text[end + 1] != '\n') ++end;
      }
      ++end;
    }
    if (end == start) return std::nullopt;  // password="" hides nothing.
    return Match{start, end};
  }
  size_t end = p;
  while (end < text.size() && !EndsUnquotedValue(text[end])) ++end;
  if (end == p) return std::nullopt;
  return Match{p, end};
}

std::optional<Match> MatchAt(std::string_view text, size_t pos) {
  std::optional<Match> m;
  switch (text[pos]) {
    case '-':
      return MatchPrivateKey(text, pos);
    case 'A':
      if ((m = MatchAwsKeyId(text, pos))) return m;
      return MatchKeyValue(text, pos);  // API_KEY=...
    case 'B':
    case 'b':
      return MatchBearer(text, pos);
    case 's':
      if ((m = MatchSkKey(text, pos))) return m;
      [[fallthrough]];
    case 'S':
      if ((m = MatchAwsSecret(text, pos))) return m;
      return MatchKeyValue(text, pos);
    case 'a':
    case 'P':
    case 'p':
    case 'T':
    case 't':
      return MatchKeyValue(text, pos);
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string RedactSecrets(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t copied = 0;  // text[0, copied) is already in `out`.
  size_t pos = 0;
  while (pos < text.size()) {
    std::optional<Match> m = MatchAt(text, pos);
    if (!m) {
      ++pos;
      continue;
    }
    out.append(text.substr(copied, m->start - copied));
    out.append(kRedacted);
    copied = pos = m->end;
  }
  out.append(text.substr(copied));
  return out;
}

}  // namespace coderunner::jobs
