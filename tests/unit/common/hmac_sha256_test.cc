#include "coderunner/common/hmac_sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coderunner/common/sha256.h"

namespace coderunner {
namespace {

std::string Bytes(int first, int last) {
  std::string s;
  for (int b = first; b <= last; ++b) s.push_back(static_cast<char>(b));
  return s;
}

TEST(HmacSha256Test, Rfc4231Vectors) {
  struct Case {
    const char* name;
    std::string key;
    std::string data;
    const char* mac;  // Test case 5 gives only the first 128 bits.
  };
  const std::vector<Case> cases = {
      {"1: short key", std::string(20, '\x0b'), "Hi There",
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"2: key shorter than the output", "Jefe", "what do ya want for nothing?",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {"3: combined key and data of 0xaa/0xdd", std::string(20, '\xaa'), std::string(50, '\xdd'),
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {"4: key 0x01..0x19", Bytes(1, 25), std::string(50, '\xcd'),
       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {"5: truncation to 128 bits", std::string(20, '\x0c'), "Test With Truncation",
       "a3b6167473100ee06e0c796c2955552b"},
      {"6: key larger than a block", std::string(131, '\xaa'),
       "Test Using Larger Than Block-Size Key - Hash Key First",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {"7: key and data larger than a block", std::string(131, '\xaa'),
       "This is a test using a larger than block-size key and a larger than block-size data. The "
       "key needs to be hashed before being used by the HMAC algorithm.",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
      // Not in RFC 4231 (values from Python's hmac module): a key of exactly
      // one block is used as is, and the empty key and message.
      {"key of exactly one block", std::string(64, 'k'), "exactly one block",
       "521b48c3c879586f93e372c93d693664ea7a718f14e1a7eae1730b9ea2928b3b"},
      {"empty key and message", "", "",
       "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string hex = HmacSha256Hex(c.key, c.data);
    ASSERT_EQ(hex.size(), 64u);
    EXPECT_EQ(hex.substr(0, std::string(c.mac).size()), c.mac);
    std::string raw = HmacSha256(c.key, c.data);
    ASSERT_EQ(raw.size(), 32u);
    EXPECT_EQ(LowerHex(raw), hex);
  }
}

TEST(HmacSha256Test, AnyChangeOfKeyOrMessageChangesTheMac) {
  const std::string base = HmacSha256Hex("secret", "1700000000.{\"id\":1}");
  EXPECT_NE(HmacSha256Hex("secreT", "1700000000.{\"id\":1}"), base);
  EXPECT_NE(HmacSha256Hex("secret", "1700000001.{\"id\":1}"), base);
  EXPECT_NE(HmacSha256Hex("secret", "1700000000.{\"id\":2}"), base);
  // RFC 2104 pads a short key with zero bytes: trailing zeros name the same
  // key (why secrets should be random bytes of fixed length, or text).
  EXPECT_EQ(HmacSha256Hex(std::string("secret\0", 7), "1700000000.{\"id\":1}"), base);
}

TEST(LowerHexTest, EncodesEveryByte) {
  EXPECT_EQ(LowerHex(""), "");
  EXPECT_EQ(LowerHex(std::string("\x00\x0f\xf0\xff", 4)), "000ff0ff");
  EXPECT_EQ(LowerHex("AZ"), "415a");
}

}  // namespace
}  // namespace coderunner
