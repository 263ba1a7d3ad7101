#include "coderunner/common/hmac_sha256.h"

#include <array>

#include "coderunner/common/sha256.h"

namespace coderunner {
namespace {

constexpr size_t kBlockBytes = 64;
constexpr unsigned char kInnerPad = 0x36;
constexpr unsigned char kOuterPad = 0x5c;

std::string DigestOf(Sha256& h) {
  std::array<unsigned char, 32> d = h.Digest();
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

}  // namespace

std::string HmacSha256(std::string_view key, std::string_view message) {
  // K0: the key, hashed when longer than a block, zero-padded to a block.
  std::string k0;
  if (key.size() > kBlockBytes) {
    Sha256 h;
    h.Update(key);
    k0 = DigestOf(h);
  } else {
    k0 = std::string(key);
  }
  k0.resize(kBlockBytes, '\0');
  std::string ipad(kBlockBytes, '\0');
  std::string opad(kBlockBytes, '\0');
  for (size_t i = 0; i < kBlockBytes; ++i) {
    ipad[i] = static_cast<char>(static_cast<unsigned char>(k0[i]) ^ kInnerPad);
    opad[i] = static_cast<char>(static_cast<unsigned char>(k0[i]) ^ kOuterPad);
  }
  Sha256 inner;
  inner.Update(ipad);
  inner.Update(message);
  Sha256 outer;
  outer.Update(opad);
  outer.Update(DigestOf(inner));
  return DigestOf(outer);
}

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  return LowerHex(HmacSha256(key, message));
}

}  // namespace coderunner
