#include "coderunner/isolation/file_path.h"

namespace coderunner::isolation {
namespace {

Status Bad(std::string_view path, const std::string& why) {
  // Quote at most 64 bytes of the hostile name, with control bytes escaped.
  std::string shown;
  for (char c : path.substr(0, 64)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      shown += "\\x";
      shown += "0123456789abcdef"[u >> 4];
      shown += "0123456789abcdef"[u & 15];
    } else {
      shown += c;
    }
  }
  return InvalidArgumentError("file path '" + shown + "' " + why, "invalid_path");
}

}  // namespace

StatusOr<std::vector<std::string>> SplitSafeRelativePath(std::string_view path, int max_depth) {
  if (path.empty()) return Bad(path, "is empty");
  if (path.size() > 1024) return Bad(path, "is longer than 1024 bytes");
  if (path.front() == '/') return Bad(path, "is absolute");
  for (char c : path) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return Bad(path, "contains a control character");
    if (c == '\\') return Bad(path, "contains a backslash");
  }
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty()) return Bad(path, "has an empty component");
    if (part == "." || part == "..") return Bad(path, "has a '.' or '..' component");
    if (part.size() > 255) return Bad(path, "has a component longer than 255 bytes");
    parts.emplace_back(part);
    start = end + 1;
  }
  if (static_cast<int>(parts.size()) > max_depth) {
    return Bad(path, "is deeper than " + std::to_string(max_depth) + " levels");
  }
  return parts;
}

bool IsReservedPath(std::string_view path) { return path.rfind(".coderunner", 0) == 0; }

}  // namespace coderunner::isolation
