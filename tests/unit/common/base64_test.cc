#include "coderunner/common/base64.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner {
namespace {

TEST(Base64Test, Rfc4648TestVectors) {
  // RFC 4648 section 10.
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : vectors) {
    SCOPED_TRACE(plain);
    EXPECT_EQ(Base64Encode(plain), encoded);
    auto decoded = Base64Decode(encoded);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, plain);
  }
}

TEST(Base64Test, UsesStandardAlphabetWithPlusAndSlash) {
  EXPECT_EQ(Base64Encode("\xfb\xff\xbf"), "+/+/");
  auto d = Base64Decode("+/+/");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, "\xfb\xff\xbf");
}

TEST(Base64Test, RoundTripsAll256ByteValuesAtEveryLength) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t len :
       {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{254}, size_t{255}, size_t{256}}) {
    SCOPED_TRACE(len);
    std::string in = all.substr(0, len);
    std::string enc = Base64Encode(in);
    EXPECT_EQ(enc.size(), (len + 2) / 3 * 4);
    auto dec = Base64Decode(enc);
    ASSERT_TRUE(dec.ok()) << dec.status().ToString();
    EXPECT_EQ(*dec, in);
  }
}

TEST(Base64Test, RejectsMalformedInput) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"length not multiple of 4", "Zm9"},
      {"single char", "Z"},
      {"invalid character", "Zm9*"},
      {"url-safe alphabet", "-_-_"},
      {"whitespace", "Zm9v Zg=="},
      {"newline", "Zm9v\nZg=="},
      {"padding in the middle", "Zg==Zm9v"},
      {"padding then data", "Zm=v"},
      {"three padding chars", "Z==="},
      {"four padding chars", "===="},
      {"padding at start", "=Zm9"},
      {"NUL byte", std::string("Zm9\0", 4)},
      {"high byte", "Zm9\xC3"},
  };
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    auto d = Base64Decode(text);
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(d.status().reason(), "invalid_base64");
  }
}

}  // namespace
}  // namespace coderunner
