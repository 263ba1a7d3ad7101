#include "coderunner/auth/authenticator.h"

#include <gtest/gtest.h>

#include "coderunner/common/sha256.h"

namespace coderunner::auth {
namespace {

config::Config WithKeys() {
  config::Config c = config::DefaultConfig();
  c.auth.mode = "api_keys";
  c.auth.keys = {{"acme", "pro", Sha256Hex("acme-secret-key")},
                 {"globex", "free", Sha256Hex("globex-secret-key")},
                 {"ops", "free", Sha256Hex("ops-secret-key"), /*admin=*/true}};
  return c;
}

TEST(AuthenticatorTest, MapsEachKeyToItsTenantAndTier) {
  config::Config c = WithKeys();
  Authenticator a(c);
  struct Case {
    const char* header;
    const char* tenant;
    const char* tier;
    bool admin;
  };
  for (const Case& k : {Case{"Bearer acme-secret-key", "acme", "pro", false},
                        Case{"Bearer globex-secret-key", "globex", "free", false},
                        Case{"Bearer ops-secret-key", "ops", "free", true}}) {
    SCOPED_TRACE(k.header);
    auto p = a.Authenticate(k.header);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->tenant, k.tenant);
    ASSERT_NE(p->tier, nullptr);
    EXPECT_EQ(p->tier->name, k.tier);
    EXPECT_EQ(p->admin, k.admin);
  }
}

TEST(AuthenticatorTest, MissingMalformedOrUnknownKeysAreUnauthenticated) {
  config::Config c = WithKeys();
  Authenticator a(c);
  for (const char* header :
       {"", "Bearer", "Bearer ", "Basic YWNtZTp4", "bearer acme-secret-key",
        "Bearer acme-secret-keyX", "Bearer ACME-SECRET-KEY", "Bearer acme-secret-key "}) {
    SCOPED_TRACE(header);
    auto p = a.Authenticate(header);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().reason(), "unauthenticated");
  }
}

TEST(AuthenticatorTest, ModeNoneAcceptsEveryoneAsTheLocalTenant) {
  config::Config c = config::DefaultConfig();
  c.auth.mode = "none";
  Authenticator a(c);
  EXPECT_FALSE(a.enabled());
  auto p = a.Authenticate("");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->tenant, "local");
  ASSERT_NE(p->tier, nullptr);
  EXPECT_EQ(p->tier->name, "enterprise");
  EXPECT_TRUE(p->admin);  // Local development: every caller is trusted.
}

TEST(AuthenticatorTest, ApiKeysWithoutKeysRejectsEverything) {
  config::Config c = config::DefaultConfig();
  Authenticator a(c);
  EXPECT_TRUE(a.enabled());
  EXPECT_FALSE(a.Authenticate("Bearer anything").ok());
}

}  // namespace
}  // namespace coderunner::auth
