#include "coderunner/intent/error_summary.h"

#include <regex>
#include <vector>

namespace coderunner::intent {
namespace {

constexpr size_t kMaxMessage = 500;

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line(text.substr(start, nl == std::string_view::npos ? nl : nl - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

// True if `path` is the program file (as given, or any path ending in it).
bool IsProgram(const std::string& path, std::string_view file) {
  if (path == file) return true;
  return path.size() > file.size() &&
         path.compare(path.size() - file.size(), file.size(), file) == 0 &&
         path[path.size() - file.size() - 1] == '/';
}

// A bare exception line ("KeyboardInterrupt") has no ": message" to tell
// it from other output; its name must say what it is.
bool LooksLikeException(const std::string& name) {
  for (const char* suffix : {"Error", "Exception", "Exit", "Interrupt", "Warning", "Iteration"}) {
    size_t n = std::char_traits<char>::length(suffix);
    if (name.size() >= n && name.compare(name.size() - n, n, suffix) == 0) return true;
  }
  return false;
}

int ModelLine(int line, int preamble_lines) {
  int l = line - preamble_lines;
  return l >= 1 ? l : 0;
}

std::string Cap(std::string s) {
  if (s.size() > kMaxMessage) s.resize(kMaxMessage);
  return s;
}

ErrorSummary Fallback(const std::vector<std::string>& lines) {
  ErrorSummary e;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (it->find_first_not_of(" \t") != std::string::npos) {
      e.message = Cap(*it);
      break;
    }
  }
  return e;
}

ErrorSummary Python(const std::vector<std::string>& lines, std::string_view file, int preamble) {
  static const std::regex kFrame(R"re(^\s*File "([^"]+)", line (\d+))re");
  static const std::regex kError(
      R"re(^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Iteration)?)(?:: (.*))?$)re");
  ErrorSummary e = Fallback(lines);
  for (const auto& l : lines) {
    std::smatch m;
    if (std::regex_search(l, m, kFrame) && IsProgram(m[1].str(), file)) {
      e.line = ModelLine(std::stoi(m[2].str()), preamble);
    }
  }
  // The exception is the last unindented line that looks like one.
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (it->empty() || (*it)[0] == ' ' || (*it)[0] == '\t') continue;
    std::smatch m;
    if (std::regex_match(*it, m, kError) && it->rfind("Traceback", 0) != 0 &&
        (m[2].matched || LooksLikeException(m[1].str()))) {
      e.type = m[1].str();
      e.message = Cap(m[2].str());
      break;
    }
  }
  return e;
}

ErrorSummary JavaScript(const std::vector<std::string>& lines, std::string_view file,
                        int preamble) {
  static const std::regex kHeader(R"re(^(\S+):(\d+)$)re");
  static const std::regex kFrame(R"re(\(?((?:file://)?/[^\s():]+):(\d+):\d+\)?$)re");
  static const std::regex kError(R"re(^([A-Za-z_$][\w$]*(?:Error|Exception)?): ?(.*)$)re");
  ErrorSummary e = Fallback(lines);
  bool have_line = false;
  for (const auto& l : lines) {
    std::smatch m;
    if (!have_line && std::regex_match(l, m, kHeader) && IsProgram(m[1].str(), file)) {
      e.line = ModelLine(std::stoi(m[2].str()), preamble);
      have_line = true;
    }
  }
  for (const auto& l : lines) {
    std::smatch m;
    if (!have_line && l.find("    at ") == 0 && std::regex_search(l, m, kFrame) &&
        IsProgram(m[1].str(), file)) {
      e.line = ModelLine(std::stoi(m[2].str()), preamble);
      have_line = true;
    }
  }
  for (const auto& l : lines) {
    std::smatch m;
    if (!l.empty() && l[0] != ' ' && std::regex_match(l, m, kError) &&
        (m[1].str().find("Error") != std::string::npos || m[1].str() == "Error" ||
         m[1].str().find("Exception") != std::string::npos)) {
      e.type = m[1].str();
      e.message = Cap(m[2].str());
      break;
    }
  }
  return e;
}

ErrorSummary Bash(const std::vector<std::string>& lines, std::string_view file, int preamble) {
  static const std::regex kLine(R"re(^(\S+): line (\d+): (.*)$)re");
  ErrorSummary e = Fallback(lines);
  for (const auto& l : lines) {
    std::smatch m;
    if (std::regex_match(l, m, kLine) && IsProgram(m[1].str(), file)) {
      e.type = "BashError";
      e.line = ModelLine(std::stoi(m[2].str()), preamble);
      e.message = Cap(m[3].str());
    }
  }
  return e;
}

}  // namespace

ErrorSummary SummarizeError(std::string_view language, std::string_view stderr_text,
                            std::string_view program_file, int preamble_lines) {
  // Only the tail matters, and std::regex is slow on megabytes.
  if (stderr_text.size() > 16384) stderr_text = stderr_text.substr(stderr_text.size() - 16384);
  std::vector<std::string> lines = Lines(stderr_text);
  if (language == "python") return Python(lines, program_file, preamble_lines);
  if (language == "javascript") return JavaScript(lines, program_file, preamble_lines);
  if (language == "bash") return Bash(lines, program_file, preamble_lines);
  return Fallback(lines);
}

}  // namespace coderunner::intent
