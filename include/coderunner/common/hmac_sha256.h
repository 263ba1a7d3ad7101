// HMAC-SHA256 (RFC 2104 over FIPS 180-4 SHA-256), for signing webhooks.
#ifndef CODERUNNER_COMMON_HMAC_SHA256_H_
#define CODERUNNER_COMMON_HMAC_SHA256_H_

#include <string>
#include <string_view>

namespace coderunner {

// The 32-byte HMAC-SHA256 of `message` under `key` (any length; a key
// longer than the 64-byte block is hashed first, as RFC 2104 says). Raw
// bytes. Pure; thread-safe.
std::string HmacSha256(std::string_view key, std::string_view message);

// HmacSha256 as 64 lower-case hex characters. Pure; thread-safe.
std::string HmacSha256Hex(std::string_view key, std::string_view message);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_HMAC_SHA256_H_
