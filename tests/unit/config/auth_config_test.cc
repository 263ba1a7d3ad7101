// The auth and tiers sections of the config.
#include <gtest/gtest.h>

#include "coderunner/config/config.h"

namespace coderunner::config {
namespace {

constexpr const char* kHash = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b";

TEST(AuthConfigTest, DefaultsAreApiKeysAndTheFourSeedTiers) {
  Config c = DefaultConfig();
  EXPECT_EQ(c.auth.mode, "api_keys");
  struct Want {
    const char* name;
    int64_t timeout;
    bool volumes;
  };
  for (const Want& w : {Want{"free", 30000, false}, Want{"pro", 120000, true},
                        Want{"business", 600000, true}, Want{"enterprise", 600000, true}}) {
    SCOPED_TRACE(w.name);
    const TierConfig* t = c.FindTier(w.name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->max_timeout_ms, w.timeout);
    EXPECT_EQ(t->volumes, w.volumes);
  }
}

TEST(AuthConfigTest, ReadsKeysAndOverridesTiersKeyByKey) {
  auto c = ParseConfig(std::string("auth:\n  mode: api_keys\n  keys:\n    - {tenant: acme, tier: "
                                   "pro, key_sha256: \"") +
                       kHash +
                       "\"}\ntiers:\n  pro: {max_concurrent: 9}\n  gold: {max_timeout_ms: 5000, "
                       "volumes: true}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->auth.keys.size(), 1u);
  EXPECT_EQ(c->auth.keys[0].tenant, "acme");
  EXPECT_EQ(c->FindTier("pro")->max_concurrent, 9);
  EXPECT_EQ(c->FindTier("pro")->max_timeout_ms, 120000);  // Untouched keys keep defaults.
  EXPECT_EQ(c->FindTier("gold")->max_timeout_ms, 5000);
  EXPECT_EQ(c->TierOfTenant("acme")->name, "pro");
  EXPECT_EQ(c->TierOfTenant("stranger")->name, "enterprise");  // auth.none_tier.
}

TEST(AuthConfigTest, BadAuthAndTiersAreRejectedNamingTheKey) {
  struct Case {
    std::string yaml;
    const char* names;
  };
  const Case cases[] = {
      {"auth: {mode: open}\n", "auth.mode"},
      {"auth: {keys: [{tenant: a, tier: pro, key_sha256: abc}]}\n", "auth.keys[0].key_sha256"},
      {std::string("auth: {keys: [{tenant: a, tier: platinum, key_sha256: \"") + kHash + "\"}]}\n",
       "platinum"},
      {std::string("auth: {keys: [{tier: pro, key_sha256: \"") + kHash + "\"}]}\n",
       "auth.keys[0].tenant"},
      {"auth: {mode: none, none_tier: nope}\n", "auth.none_tier"},
      {"auth: {secret: x}\n", "auth.secret"},
      {"tiers: {free: {max_concurrent: 0}}\n", "tiers.free"},
      {"tiers: {free: {speed: 3}}\n", "tiers.free.speed"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto r = ParseConfig(c.yaml);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(c.names), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace coderunner::config
