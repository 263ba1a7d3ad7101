#include "coderunner/jobs/webhook_signature.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "coderunner/common/hmac_sha256.h"

namespace coderunner::jobs {
namespace {

TEST(WebhookSignatureTest, TenantKeysAreDistinctAndDerivedFromTheSecret) {
  std::set<std::string> keys;
  for (const char* secret : {"s1", "s2"}) {
    for (const char* tenant : {"acme", "globex", "", "acme2"}) {
      std::string k = WebhookTenantKey(secret, tenant);
      EXPECT_EQ(k.size(), 64u);
      EXPECT_EQ(k, HmacSha256Hex(secret, std::string("coderunner-webhook-key:") + tenant));
      EXPECT_TRUE(keys.insert(k).second) << secret << "/" << tenant;
    }
  }
}

TEST(WebhookSignatureTest, HeaderValueIsTimestampAndHmacOfTimestampDotBody) {
  struct Case {
    const char* name;
    std::string key;
    int64_t t;
    std::string body;
  };
  const std::vector<Case> cases = {
      {"json", "k", 1700000000, R"({"id":"job-1","status":"succeeded"})"},
      {"empty body", "k", 1, ""},
      {"body with dots and newlines", "another key", 1234567890, "a.b\nc"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string t = std::to_string(c.t);
    EXPECT_EQ(WebhookSignature(c.key, c.t, c.body),
              "t=" + t + ",v1=" + HmacSha256Hex(c.key, t + "." + c.body));
  }
  // Fixed vector (Python: hmac.new(b"k", b"1700000000.{}", "sha256").hexdigest()).
  EXPECT_EQ(WebhookSignature("k", 1700000000, "{}"),
            "t=1700000000,v1=c6ef4734033cee2367414a0939385eca0397754aa7a59716da7463a9298b5146");
}

class LoadWebhookSecretTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/coderunner-whsec-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    ASSERT_NE(mkdtemp(buf.data()), nullptr);
    dir_ = buf.data();
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    unsetenv("CODERUNNER_TEST_WEBHOOK_SECRET");
  }
  std::string dir_;
};

TEST_F(LoadWebhookSecretTest, CreatesAPrivateRandomSecretOnceAndKeepsIt) {
  config::WebhooksConfig cfg;
  auto first = LoadWebhookSecret(cfg, dir_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->size(), 64u);
  struct stat st;
  ASSERT_EQ(stat((dir_ + "/webhook_secret").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto again = LoadWebhookSecret(cfg, dir_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first);
  // Another directory gets another secret.
  std::filesystem::create_directory(dir_ + "/other");
  auto other = LoadWebhookSecret(cfg, dir_ + "/other");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*other, *first);
}

TEST_F(LoadWebhookSecretTest, ReadsAnOperatorsFileTrimmed) {
  std::ofstream(dir_ + "/webhook_secret") << "  my secret\n";
  auto s = LoadWebhookSecret(config::WebhooksConfig{}, dir_);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, "my secret");
  std::ofstream(dir_ + "/webhook_secret", std::ios::trunc) << "\n";
  EXPECT_FALSE(LoadWebhookSecret(config::WebhooksConfig{}, dir_).ok());
}

TEST_F(LoadWebhookSecretTest, TheNamedVariableWinsAndMustBeSet) {
  config::WebhooksConfig cfg;
  cfg.secret_env = "CODERUNNER_TEST_WEBHOOK_SECRET";
  auto missing = LoadWebhookSecret(cfg, dir_);
  EXPECT_EQ(missing.status().reason(), "webhook_secret_missing");
  EXPECT_NE(missing.status().message().find("CODERUNNER_TEST_WEBHOOK_SECRET"), std::string::npos);
  setenv("CODERUNNER_TEST_WEBHOOK_SECRET", "", 1);
  EXPECT_EQ(LoadWebhookSecret(cfg, dir_).status().reason(), "webhook_secret_missing");
  setenv("CODERUNNER_TEST_WEBHOOK_SECRET", "from-env", 1);
  auto s = LoadWebhookSecret(cfg, dir_);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, "from-env");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/webhook_secret"));
}

}  // namespace
}  // namespace coderunner::jobs
