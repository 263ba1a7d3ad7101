// ExtractCode: a small reader for CommonMark fenced code blocks. Models wrap
// the program in a fence, often with prose around it and sometimes with a
// second block (example output, a usage line); the block tagged with the
// target language is the program.
#include "code_extract.h"

#include <cctype>
#include <vector>

#include "line_text.h"

namespace coderunner::intent {
namespace {

struct Block {
  std::string info;  // Lower-cased first word of the info string.
  std::string body;
};

struct Fence {
  char c = 0;         // '`' or '~'.
  size_t indent = 0;  // 0 to 3 spaces.
  size_t length = 0;  // 3 or more; 0 if the line is no fence.
};

bool NamesLanguage(std::string_view info, std::string_view language) {
  if (language == "python") return info == "python" || info == "py" || info == "python3";
  if (language == "javascript") {
    return info == "javascript" || info == "js" || info == "node" || info == "nodejs";
  }
  if (language == "typescript") return info == "typescript" || info == "ts" || info == "tsx";
  if (language == "bash") return info == "bash" || info == "sh" || info == "shell";
  return info == language;
}

// The fence run at the start of `line` (after at most 3 spaces: 4 would
// make it an indented code line).
Fence FenceAt(std::string_view line) {
  Fence f;
  size_t indent = 0;
  while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
  if (indent > 3 || indent >= line.size()) return f;
  char c = line[indent];
  if (c != '`' && c != '~') return f;
  size_t n = 0;
  while (indent + n < line.size() && line[indent + n] == c) ++n;
  if (n < 3) return f;
  f.c = c;
  f.indent = indent;
  f.length = n;
  return f;
}

// The first word of the info string after an opening fence, lower-cased;
// "python {linenos}" and "python:main.py" both name python.
std::string InfoWord(std::string_view rest) {
  size_t b = rest.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = rest.find_first_of(" \t{:", b);
  std::string word;
  for (char ch : rest.substr(b, e == std::string_view::npos ? e : e - b)) {
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return word;
}

// Drops leading and trailing blank lines (and trailing spaces), keeps the
// indentation of the first code line; ends with one '\n' unless empty.
std::string Tidy(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (!IsBlank(text.substr(start, nl == std::string_view::npos ? nl : nl - start))) break;
    if (nl == std::string_view::npos) return "";
    start = nl + 1;
  }
  size_t end = text.find_last_not_of(" \t\n");
  if (end == std::string_view::npos || end < start) return "";
  return std::string(text.substr(start, end - start + 1)) + "\n";
}

// Every fenced block of `reply`, in order.
std::vector<Block> ReadBlocks(std::string_view reply, std::string* text_out) {
  // CRLF becomes LF; a lone CR is kept (it may be data in a string).
  std::string& text = *text_out;
  text.reserve(reply.size());
  for (size_t i = 0; i < reply.size(); ++i) {
    if (reply[i] == '\r' && i + 1 < reply.size() && reply[i + 1] == '\n') continue;
    text += reply[i];
  }
  std::vector<Block> blocks;
  bool in_block = false;
  Fence open;
  for (size_t pos = 0; pos <= text.size();) {
    size_t nl = text.find('\n', pos);
    size_t stop = nl == std::string::npos ? text.size() : nl;
    std::string_view line(text.data() + pos, stop - pos);
    pos = stop + 1;
    Fence f = FenceAt(line);
    if (!in_block) {
      if (f.length == 0) continue;
      std::string_view rest = line.substr(f.indent + f.length);
      // A backtick info string cannot hold a backtick: "```x```" on one
      // line is inline code, not an opening fence.
      if (f.c == '`' && rest.find('`') != std::string_view::npos) continue;
      blocks.push_back({InfoWord(rest), ""});
      in_block = true;
      open = f;
      continue;
    }
    // Only the same character, at least as long, with nothing but spaces
    // after it closes the block: a ```` block can quote a ``` one.
    if (f.length >= open.length && f.c == open.c && IsBlank(line.substr(f.indent + f.length))) {
      in_block = false;
      continue;
    }
    // As in CommonMark, a fence indented N spaces takes up to N spaces off
    // each of its lines (else an indented Python block would not run).
    size_t strip = 0;
    while (strip < open.indent && strip < line.size() && line[strip] == ' ') ++strip;
    Block& b = blocks.back();
    b.body.append(line.substr(strip));
    b.body += '\n';
  }
  // An unterminated block simply ran to the end of the reply above.
  return blocks;
}

}  // namespace

std::string ExtractCode(std::string_view reply, std::string_view language) {
  std::string text;
  std::vector<Block> blocks = ReadBlocks(reply, &text);
  for (const Block& b : blocks) {
    if (NamesLanguage(b.info, language)) return Tidy(b.body);
  }
  if (!blocks.empty()) return Tidy(blocks.front().body);
  return Tidy(text);
}

std::vector<std::string> ExtractCodeBlocks(std::string_view reply, std::string_view language) {
  std::string text;
  std::vector<Block> blocks = ReadBlocks(reply, &text);
  std::vector<std::string> named, all;
  for (const Block& b : blocks) {
    std::string body = Tidy(b.body);
    if (body.empty()) continue;
    if (NamesLanguage(b.info, language)) named.push_back(body);
    all.push_back(std::move(body));
  }
  if (!named.empty()) return named;
  if (!all.empty() || !blocks.empty()) return all;
  std::string whole = Tidy(text);
  if (whole.empty()) return {};
  return {whole};
}

}  // namespace coderunner::intent
