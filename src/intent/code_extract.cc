#include "coderunner/intent/code_extract.h"

#include <cctype>
#include <vector>

namespace coderunner::intent {
namespace {

struct Block {
  std::string info;  // Lower-cased first word of the info string.
  std::string body;
};

bool NamesLanguage(const std::string& info, std::string_view language) {
  if (language == "python") return info == "python" || info == "py" || info == "python3";
  if (language == "javascript") {
    return info == "javascript" || info == "js" || info == "node" || info == "nodejs";
  }
  if (language == "bash") return info == "bash" || info == "sh" || info == "shell";
  return info == language;
}

// The fence opening `line` (its char and length), or 0 if none.
size_t FenceOf(std::string_view line, char* fence_char) {
  size_t indent = 0;
  while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
  if (indent > 3 || indent >= line.size()) return 0;
  char c = line[indent];
  if (c != '`' && c != '~') return 0;
  size_t n = 0;
  while (indent + n < line.size() && line[indent + n] == c) ++n;
  if (n < 3) return 0;
  *fence_char = c;
  return n;
}

std::string Tidy(std::string_view text) {
  // Drop leading and trailing blank lines, keep indentation inside.
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    if (line.find_first_not_of(" \t") != std::string_view::npos) break;
    if (nl == std::string_view::npos) return "";
    start = nl + 1;
  }
  size_t end = text.find_last_not_of(" \t\n");
  if (end == std::string_view::npos || end < start) return "";
  return std::string(text.substr(start, end - start + 1)) + "\n";
}

}  // namespace

std::string ExtractCode(std::string_view reply, std::string_view language) {
  std::string text;
  text.reserve(reply.size());
  for (size_t i = 0; i < reply.size(); ++i) {
    if (reply[i] == '\r' && i + 1 < reply.size() && reply[i + 1] == '\n') continue;
    text += reply[i];
  }
  std::vector<Block> blocks;
  Block* open = nullptr;
  char open_char = 0;
  size_t open_len = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    char c = 0;
    size_t n = FenceOf(line, &c);
    if (open == nullptr && n > 0) {
      blocks.push_back({});
      open = &blocks.back();
      open_char = c;
      open_len = n;
      std::string_view rest = line.substr(line.find(c) + n);
      size_t b = rest.find_first_not_of(" \t");
      if (b != std::string_view::npos) {
        size_t e = rest.find_first_of(" \t{", b);
        for (char ch : rest.substr(b, e == std::string_view::npos ? e : e - b)) {
          open->info += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
      }
    } else if (open != nullptr && n >= open_len && c == open_char &&
               line.find_first_not_of(std::string(" ") + c) == std::string_view::npos) {
      open = nullptr;
    } else if (open != nullptr) {
      open->body.append(line);
      open->body += '\n';
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  for (const Block& b : blocks) {
    if (NamesLanguage(b.info, language)) return Tidy(b.body);
  }
  if (!blocks.empty()) return Tidy(blocks.front().body);
  return Tidy(text);
}

}  // namespace coderunner::intent
