// ConstantTimeEqual: comparing a presented secret with a kept one.
#ifndef CODERUNNER_COMMON_CONSTANT_TIME_H_
#define CODERUNNER_COMMON_CONSTANT_TIME_H_

#include <string_view>

namespace coderunner {

// Whether `a` and `b` are equal, comparing every byte without an early
// exit, so that the time taken does not reveal how long a prefix matched.
// (The lengths may differ at once: a key's hash and a token have one
// length.) Pure; thread-safe.
inline bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_CONSTANT_TIME_H_
