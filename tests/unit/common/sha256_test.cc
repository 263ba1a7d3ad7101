#include "coderunner/common/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner {
namespace {

TEST(Sha256Test, NistVectors) {
  struct Case {
    const char* name;
    std::string input;
    const char* digest;
  };
  const std::vector<Case> cases = {
      {"empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      // 56 bytes: the padding no longer fits in the block.
      {"448-bit message", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      // 112 bytes: two blocks of message.
      {"896-bit message",
       "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlm"
       "nopqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
      {"55 bytes", std::string(55, 'a'),
       "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {"56 bytes", std::string(56, 'a'),
       "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {"63 bytes", std::string(63, 'a'),
       "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {"64 bytes", std::string(64, 'a'),
       "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {"65 bytes", std::string(65, 'a'),
       "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {"one million a", std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Sha256Hex(c.input), c.digest);
  }
}

TEST(Sha256Test, HashesBinaryDataIncludingNul) {
  std::string data("\0\x01\xff", 3);
  std::string d = Sha256Hex(data);
  EXPECT_EQ(d.size(), 64u);
  EXPECT_NE(d, Sha256Hex(std::string("\0\x01", 2)));
  EXPECT_EQ(d.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(Sha256Test, StreamingEqualsOneShotForEverySplit) {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 7));
  for (size_t a = 0; a <= data.size(); a += 13) {
    for (size_t b = a; b <= data.size(); b += 29) {
      Sha256 h;
      h.Update(std::string_view(data).substr(0, a));
      h.Update(std::string_view(data).substr(a, b - a));
      h.Update(std::string_view(data).substr(b));
      ASSERT_EQ(h.HexDigest(), Sha256Hex(data)) << a << " " << b;
    }
  }
}

}  // namespace
}  // namespace coderunner
