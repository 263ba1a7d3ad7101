// SHA-256 (FIPS 180-4), for code and input hashes in results.
#ifndef CODERUNNER_COMMON_SHA256_H_
#define CODERUNNER_COMMON_SHA256_H_

#include <string>
#include <string_view>

namespace coderunner {

// Lower-case hex SHA-256 of `data`. Pure; thread-safe.
std::string Sha256Hex(std::string_view data);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_SHA256_H_
