#include "coderunner/intent/language_detect.h"

#include <cctype>
#include <vector>

namespace coderunner::intent {

std::string DetectLanguage(std::string_view intent) {
  // Words: lower-cased runs of letters, digits and '.', so that "node.js"
  // stays one word; a trailing '.' (end of a sentence) is dropped.
  std::vector<std::string> words;
  std::string w;
  for (size_t i = 0; i <= intent.size(); ++i) {
    unsigned char c = i < intent.size() ? static_cast<unsigned char>(intent[i]) : ' ';
    if (std::isalnum(c) || c == '.') {
      w += static_cast<char>(std::tolower(c));
      continue;
    }
    while (!w.empty() && w.back() == '.') w.pop_back();
    if (!w.empty()) words.push_back(w);
    w.clear();
  }
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& x = words[i];
    if (x == "javascript" || x == "js" || x == "nodejs" || x == "node.js" || x == "ecmascript") {
      return "javascript";
    }
    // Plain "node" is a tree's or a graph's far more often than Node.js's.
    if (x == "node" && i + 1 < words.size() && words[i + 1] == "js") return "javascript";
    if (x == "bash" || x == "shell" || x == "sh") return "bash";
    if (x == "python" || x == "python3" || x == "py") return "python";
  }
  return "";
}

}  // namespace coderunner::intent
