// SHA-256 (FIPS 180-4), for code and input hashes in results.
#ifndef CODERUNNER_COMMON_SHA256_H_
#define CODERUNNER_COMMON_SHA256_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace coderunner {

// Incremental SHA-256, for data that arrives in pieces (files read in
// chunks). Not thread-safe; one instance per digest.
class Sha256 {
 public:
  Sha256();
  // Adds `data` to the message.
  void Update(std::string_view data);
  // The 32-byte digest of everything added. Call once (this or
  // HexDigest); the object is spent afterwards.
  std::array<unsigned char, 32> Digest();
  // Lower-case hex digest of everything added. Call once; the object is
  // spent afterwards.
  std::string HexDigest();

 private:
  std::array<uint32_t, 8> h_;
  unsigned char buf_[64] = {0};
  size_t buffered_ = 0;
  uint64_t total_ = 0;
};

// Lower-case hex of `bytes` (two characters per byte). Pure; thread-safe.
std::string LowerHex(std::string_view bytes);

// Lower-case hex SHA-256 of `data`. Pure; thread-safe.
std::string Sha256Hex(std::string_view data);

// Whether `text` has Sha256Hex's form: 64 lower-case hex digits. Pure.
bool IsSha256Hex(std::string_view text);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_SHA256_H_
