#include "coderunner/common/ids.h"

#include <sys/random.h>

#include <random>

namespace coderunner {

std::string NewId(std::string_view prefix) {
  unsigned char bytes[12];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < sizeof(bytes)) {
    // getrandom cannot fail on a sane kernel; fall back rather than crash.
    thread_local std::random_device rd;
    for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  }
  static const char* kHex = "0123456789abcdef";
  std::string id(prefix);
  id.push_back('-');
  for (unsigned char b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 15]);
  }
  return id;
}

}  // namespace coderunner
