// SummarizeError: reads the error report each interpreter prints on an
// uncaught error. Hand-written scanning rather than std::regex: stderr is
// untrusted and can be megabytes of one line, where libstdc++'s recursive
// regex engine is slow and can exhaust the stack.
#include "error_summary.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "coderunner/common/utf8.h"
#include "line_text.h"

namespace coderunner::intent {
namespace {

constexpr size_t kMaxMessage = 500;
constexpr size_t kMaxType = 100;
// Every report is at the end of stderr and is a few KiB at most (Python
// folds deep recursion, Node prints ten frames); earlier output is noise.
constexpr size_t kTail = 64 * 1024;

using Lines = std::vector<std::string_view>;

Lines SplitLines(std::string_view text) {
  Lines out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

bool Indented(std::string_view s) { return !s.empty() && (s[0] == ' ' || s[0] == '\t'); }

std::string_view TrimLeft(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  return b == std::string_view::npos ? std::string_view() : s.substr(b);
}

// True if `path` is the program: `file` itself or any path ending in
// "/<file>" (a "file://" URL included).
bool IsProgram(std::string_view path, std::string_view file) {
  if (file.empty()) return false;
  if (path == file) return true;
  return path.size() > file.size() && path.ends_with(file) &&
         path[path.size() - file.size() - 1] == '/';
}

// A line number: 1 to 9 digits (more is no line of ours); 0 otherwise.
int ParseLineNumber(std::string_view digits) {
  if (digits.empty() || digits.size() > 9) return 0;
  int n = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
    n = n * 10 + (c - '0');
  }
  return n;
}

// The line in the model's code; 0 if the error is in the preamble.
int ModelLine(int line, int preamble_lines) {
  int l = line - std::max(preamble_lines, 0);
  return line > 0 && l >= 1 ? l : 0;
}

// Valid UTF-8 (the summary goes into JSON, where nlohmann would throw on a
// bad byte) and at most `max` bytes, cut at a character boundary.
std::string Clean(std::string_view s, size_t max) {
  std::string out = SanitizeUtf8(s);
  if (out.size() > max) out.resize(CompleteUtf8Prefix(std::string_view(out).substr(0, max)));
  return out;
}

bool IsIdentChar(char c, bool dots) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || (dots && c == '.');
}

struct Exception {
  std::string_view type;
  std::string_view message;
  bool has_colon = false;  // "Type: message" rather than a bare "Type".
};

// Parses "Type: message", "Type:" or a bare "Type", where Type is an
// identifier (dotted if `dots`, as in json.decoder.JSONDecodeError).
bool ParseException(std::string_view line, bool dots, Exception* e) {
  if (line.empty() || std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '.') {
    return false;
  }
  size_t n = 0;
  while (n < line.size() && IsIdentChar(line[n], dots)) ++n;
  if (n == 0) return false;
  e->type = line.substr(0, n);
  if (n == line.size()) {
    e->has_colon = false;
    e->message = {};
    return true;
  }
  if (line[n] != ':') return false;
  e->has_colon = true;
  e->message = TrimLeft(line.substr(n + 1));
  return true;
}

// Outside a traceback, a name says it is an exception only by its suffix
// ("KeyError", "KeyboardInterrupt"); a suffix alone ("Warning: ...") is more
// likely the program's own output, except the base classes Error and
// Exception.
bool LooksLikeExceptionName(std::string_view name) {
  if (name == "Error" || name == "Exception") return true;
  for (std::string_view suffix :
       {"Error", "Exception", "Exit", "Interrupt", "Warning", "Iteration", "Group"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) return true;
  }
  return false;
}

ErrorSummary Summary(const Exception& e, int line) {
  ErrorSummary s;
  s.type = Clean(e.type, kMaxType);
  s.message = Clean(e.message, kMaxMessage);
  s.line = line;
  return s;
}

// The last non-blank line, minus lines in `skip`.
ErrorSummary Fallback(const Lines& lines, bool (*skip)(std::string_view) = nullptr) {
  ErrorSummary e;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (IsBlank(*it) || (skip != nullptr && skip(*it))) continue;
    e.message = Clean(*it, kMaxMessage);
    break;
  }
  return e;
}

// `  File "<path>", line N[, in <func>]`: true with the path and N.
bool ParsePythonFrame(std::string_view line, std::string_view* path, int* number) {
  std::string_view t = TrimLeft(line);
  if (!t.starts_with("File \"")) return false;
  t.remove_prefix(6);
  size_t q = t.find("\", line ");
  if (q == std::string_view::npos) return false;
  *path = t.substr(0, q);
  std::string_view rest = t.substr(q + 8);
  size_t d = 0;
  while (d < rest.size() && std::isdigit(static_cast<unsigned char>(rest[d]))) ++d;
  *number = ParseLineNumber(rest.substr(0, d));
  return d > 0;
}

ErrorSummary Python(const Lines& lines, std::string_view file, int preamble) {
  // Tracebacks list the innermost frame last, so the last frame in the
  // program is where its code failed; the exception follows the last frame
  // (of any file) as the first unindented line, after the source and caret
  // lines. The SyntaxError report has the same shape with a single frame.
  int line = 0;
  size_t after_last_frame = 0;
  bool any_frame = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view path;
    int n = 0;
    if (!ParsePythonFrame(lines[i], &path, &n)) continue;
    any_frame = true;
    after_last_frame = i + 1;
    if (IsProgram(path, file)) line = ModelLine(n, preamble);
  }
  Exception e;
  if (any_frame) {
    for (size_t i = after_last_frame; i < lines.size(); ++i) {
      if (IsBlank(lines[i]) || Indented(lines[i])) continue;
      // Any name will do here, even a bare one: `raise Custom` prints "Custom".
      if (ParseException(lines[i], true, &e)) return Summary(e, line);
      break;
    }
  }
  // No traceback (or an odd one): the last unindented line that reads as
  // an exception, if its name says so.
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (Indented(*it) || !ParseException(*it, true, &e)) continue;
    if (LooksLikeExceptionName(e.type)) return Summary(e, line);
  }
  ErrorSummary s = Fallback(lines);
  s.line = line;
  return s;
}

// A Node stack frame "    at f (<path>:N:C)" or "    at <path>:N:C": true
// with the path and N.
bool ParseNodeFrame(std::string_view line, std::string_view* path, int* number) {
  std::string_view t = TrimLeft(line);
  if (!t.starts_with("at ")) return false;
  t.remove_prefix(3);
  // Node appends " {" when the error has extra properties to print.
  if (t.ends_with(" {")) t.remove_suffix(2);
  if (t.ends_with(")")) {
    size_t open = t.rfind('(');
    if (open == std::string_view::npos) return false;
    t = t.substr(open + 1, t.size() - open - 2);
  }
  size_t c2 = t.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0) return false;
  size_t c1 = t.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos) return false;
  if (ParseLineNumber(t.substr(c2 + 1)) == 0) return false;
  *number = ParseLineNumber(t.substr(c1 + 1, c2 - c1 - 1));
  *path = t.substr(0, c1);
  return *number > 0;
}

// Node's report header "<path>:N" (no spaces): true with the path and N.
bool ParseNodeHeader(std::string_view line, std::string_view* path, int* number) {
  size_t colon = line.rfind(':');
  if (colon == std::string_view::npos || colon == 0 ||
      line.find_first_of(" \t") != std::string_view::npos) {
    return false;
  }
  *number = ParseLineNumber(line.substr(colon + 1));
  *path = line.substr(0, colon);
  return *number > 0;
}

bool IsNodeTrailer(std::string_view line) {
  return line.starts_with("Node.js v") || line.starts_with("(Use `node --trace-");
}

ErrorSummary JavaScript(const Lines& lines, std::string_view file, int preamble) {
  // An uncaught error prints "<file>:N", the source line, a caret line, a
  // blank line, then "Type: message" and the stack. The header names the
  // throwing file, which may be Node's own ("node:fs:573"); then the first
  // stack frame in the program gives the line.
  // The header is the first "<path>:N" line with a caret line at most
  // three lines below it (the program may have written to stderr before).
  int line = 0;
  bool have_line = false;
  bool have_header = false;
  size_t search_from = 0;
  std::string_view path;
  int n = 0;
  for (size_t h = 0; h < lines.size() && !have_header; ++h) {
    if (!ParseNodeHeader(lines[h], &path, &n)) continue;
    for (size_t i = h + 1; i < lines.size() && i <= h + 3; ++i) {
      std::string_view t = TrimLeft(lines[i]);
      if (!t.empty() && t.find_first_not_of('^') == std::string_view::npos) {
        have_header = true;
        search_from = i + 1;
        break;
      }
    }
    if (have_header && IsProgram(path, file)) {
      line = ModelLine(n, preamble);
      have_line = true;
    }
  }
  for (size_t i = 0; i < lines.size() && !have_line; ++i) {
    if (ParseNodeFrame(lines[i], &path, &n) && IsProgram(path, file)) {
      line = ModelLine(n, preamble);
      have_line = true;
    }
  }
  Exception e;
  if (have_header) {
    // The first line after the caret is what was thrown: an error's
    // "Type: message", or a thrown string or object printed as is.
    for (size_t i = search_from; i < lines.size(); ++i) {
      if (IsBlank(lines[i])) continue;
      if (ParseException(lines[i], false, &e) && (e.has_colon || LooksLikeExceptionName(e.type))) {
        return Summary(e, line);
      }
      if (IsNodeTrailer(lines[i])) break;
      return Summary(Exception{{}, lines[i], false}, line);
    }
  }
  // No header (say, the program printed err.stack itself): an unindented
  // "Type: message" whose type is an error's or which a stack follows.
  for (size_t i = 0; i < lines.size(); ++i) {
    if (Indented(lines[i]) || !ParseException(lines[i], false, &e) || !e.has_colon) continue;
    std::string_view unused_path;
    int unused_n = 0;
    bool stack_follows =
        i + 1 < lines.size() && ParseNodeFrame(lines[i + 1], &unused_path, &unused_n);
    if (LooksLikeExceptionName(e.type) || stack_follows) return Summary(e, line);
  }
  ErrorSummary s = Fallback(lines, IsNodeTrailer);
  s.line = line;
  return s;
}

// esbuild's "<path>:N:C: ERROR: message" for the program: true with N and
// the message.
bool ParseEsbuildError(std::string_view line, std::string_view file, int* number,
                       std::string_view* message) {
  constexpr std::string_view kError = ": ERROR: ";
  size_t at = line.find(kError);
  if (at == std::string_view::npos) return false;
  std::string_view where = line.substr(0, at);
  size_t c2 = where.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0) return false;
  size_t c1 = where.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || !IsProgram(where.substr(0, c1), file)) return false;
  if (ParseLineNumber(where.substr(c2 + 1)) == 0) return false;
  *number = ParseLineNumber(where.substr(c1 + 1, c2 - c1 - 1));
  *message = line.substr(at + kError.size());
  return *number > 0;
}

ErrorSummary TypeScript(const Lines& lines, std::string_view file, int preamble) {
  // tsx compiles with esbuild first: a syntax error is a TransformError
  // thrown from Node's own code, with "<path>:N:C: ERROR: message" lines.
  // Once it runs, errors are Node's, with tsx's source maps giving the
  // TypeScript lines.
  for (std::string_view l : lines) {
    int n = 0;
    std::string_view message;
    if (ParseEsbuildError(l, file, &n, &message)) {
      return Summary(Exception{"TransformError", message, true}, ModelLine(n, preamble));
    }
  }
  return JavaScript(lines, file, preamble);
}

ErrorSummary Bash(const Lines& lines, std::string_view file, int preamble) {
  // "<path>: line N: message". The first one is taken: later ones are
  // usually consequences, and a syntax error's second line only quotes the
  // offending code.
  for (std::string_view l : lines) {
    size_t at = l.find(": line ");
    if (at == std::string_view::npos || !IsProgram(l.substr(0, at), file)) continue;
    std::string_view rest = l.substr(at + 7);
    size_t colon = rest.find(": ");
    if (colon == std::string_view::npos) continue;
    int n = ParseLineNumber(rest.substr(0, colon));
    if (n == 0) continue;
    return Summary(Exception{"BashError", rest.substr(colon + 2), true}, ModelLine(n, preamble));
  }
  return Fallback(lines);
}

}  // namespace

ErrorSummary SummarizeError(std::string_view language, std::string_view stderr_text,
                            std::string_view program_file, int preamble_lines) {
  if (stderr_text.size() > kTail) {
    // Start at a line boundary so no half line is read as a header.
    stderr_text = stderr_text.substr(stderr_text.size() - kTail);
    size_t nl = stderr_text.find('\n');
    stderr_text = nl == std::string_view::npos ? stderr_text : stderr_text.substr(nl + 1);
  }
  Lines lines = SplitLines(stderr_text);
  if (language == "python") return Python(lines, program_file, preamble_lines);
  if (language == "javascript") return JavaScript(lines, program_file, preamble_lines);
  if (language == "typescript") return TypeScript(lines, program_file, preamble_lines);
  if (language == "bash") return Bash(lines, program_file, preamble_lines);
  return Fallback(lines);
}

}  // namespace coderunner::intent
