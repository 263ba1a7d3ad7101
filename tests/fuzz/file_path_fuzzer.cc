// Fuzzes file-path validation: whatever it accepts must be relative, free of
// '.', '..' and empty components, and free of control characters.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "coderunner/isolation/file_path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view path(reinterpret_cast<const char*>(data), size);
  auto parts = coderunner::isolation::SplitSafeRelativePath(path, 16);
  if (!parts.ok()) return 0;
  if (path.empty() || path.front() == '/') __builtin_trap();
  for (const auto& p : *parts) {
    if (p.empty() || p == "." || p == ".." || p.find('/') != std::string::npos) __builtin_trap();
    for (unsigned char c : p) {
      if (c < 0x20 || c == 0x7f || c == '\\') __builtin_trap();
    }
  }
  return 0;
}
