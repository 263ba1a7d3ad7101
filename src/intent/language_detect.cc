// DetectLanguage: reads the intent as lower-cased words and looks for a
// language's name among them. Whole words only, so names inside other
// words ("jsonify", "shellfish", "pythonic") never count.
#include "language_detect.h"

#include <cctype>
#include <vector>

namespace coderunner::intent {
namespace {

// Lower-cased runs of letters, digits and '.', so that "node.js" and
// "python3.11" stay one word; dots at either end (a full stop, ".py") are
// dropped.
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string w;
  auto flush = [&] {
    size_t b = w.find_first_not_of('.');
    size_t e = w.find_last_not_of('.');
    if (b != std::string::npos) words.push_back(w.substr(b, e - b + 1));
    w.clear();
  };
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '.') {
      w += static_cast<char>(std::tolower(c));
    } else {
      flush();
    }
  }
  flush();
  return words;
}

// "python3.11" and the like.
bool IsVersionedPython(const std::string& w) {
  if (w.rfind("python3.", 0) != 0 || w.size() == 8) return false;
  for (size_t i = 8; i < w.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(w[i]))) return false;
  }
  return true;
}

bool IsTypeScript(const std::string& w) { return w == "typescript" || w == "ts"; }

bool NamesTypeScript(const std::vector<std::string>& words) {
  for (const auto& w : words) {
    if (IsTypeScript(w)) return true;
  }
  return false;
}

}  // namespace

std::string DetectLanguage(std::string_view intent) {
  std::vector<std::string> words = Words(intent);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& x = words[i];
    if (IsTypeScript(x)) return "typescript";
    // Plain "node" is a tree's or a graph's far more often than Node.js's,
    // so it counts only as "node js".
    bool node_js = x == "node" && i + 1 < words.size() && words[i + 1] == "js";
    if (node_js || x == "javascript" || x == "js" || x == "nodejs" || x == "node.js" ||
        x == "ecmascript") {
      // TypeScript runs on Node.js: "a Node.js script in TypeScript" is one.
      return NamesTypeScript(words) ? "typescript" : "javascript";
    }
    if (x == "bash" || x == "shell" || x == "sh") return "bash";
    if (x == "python" || x == "python3" || x == "py" || IsVersionedPython(x)) return "python";
  }
  return "";
}

}  // namespace coderunner::intent
