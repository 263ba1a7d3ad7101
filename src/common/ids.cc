#include "coderunner/common/ids.h"

#include <sys/random.h>

#include <random>

namespace coderunner {
namespace {

// The random bytes of an id, each written as two hex characters.
constexpr size_t kIdRandomBytes = 12;
constexpr char kHex[] = "0123456789abcdef";

}  // namespace

std::string NewId(std::string_view prefix) {
  unsigned char bytes[kIdRandomBytes];
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
  std::string id(prefix);
  id.push_back('-');
  for (unsigned char b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 15]);
  }
  return id;
}

bool IsId(std::string_view prefix, std::string_view id) {
  if (id.size() != prefix.size() + 1 + 2 * kIdRandomBytes) return false;
  if (id.substr(0, prefix.size()) != prefix || id[prefix.size()] != '-') return false;
  return id.find_first_not_of(kHex, prefix.size() + 1) == std::string_view::npos;
}

}  // namespace coderunner
