// ASCII lower case, for host names and header names. Internal to src/egress.
#ifndef CODERUNNER_EGRESS_ASCII_LOWER_H_
#define CODERUNNER_EGRESS_ASCII_LOWER_H_

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace coderunner::egress {

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace coderunner::egress

#endif  // CODERUNNER_EGRESS_ASCII_LOWER_H_
