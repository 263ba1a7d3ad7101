// OpenConfiguredStore with store.kind postgres (a build with the fleet):
// the password comes from store.password_env and never shows in an error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "service/store_opening.h"

namespace coderunner::service {
namespace {

TEST(StoreOpeningTest, PostgresFailuresNameTheKeyAndHideThePassword) {
  constexpr const char* kPassword = "s3cret-Pw";
  struct Case {
    const char* name;
    const char* password_env;
    const char* env_value;  // nullptr: unset.
    StatusCode code;
    const char* message_prefix;
    const char* reason;
  };
  const Case cases[] = {
      {"unset password_env", "CR_TEST_PG_PASSWORD", nullptr, StatusCode::kFailedPrecondition,
       "store.password_env: ", kReasonStorePasswordUnset},
      {"unreachable server with a password", "CR_TEST_PG_PASSWORD", kPassword,
       StatusCode::kUnavailable, "store.url: ", store::kReasonStoreUnavailable},
      {"unreachable server without a password", "", nullptr, StatusCode::kUnavailable,
       "store.url: ", store::kReasonStoreUnavailable},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    config::Config cfg = config::DefaultConfig();
    cfg.store.kind = "postgres";
    cfg.store.url = "host=/nonexistent/coderunner-store-opening-test dbname=coderunner";
    cfg.store.password_env = c.password_env;
    cfg.store.connect_timeout_ms = 200;
    std::vector<std::string> asked;
    auto store = OpenConfiguredStore(cfg, [&](const char* name) {
      asked.push_back(name);
      return c.env_value;
    });
    ASSERT_FALSE(store.ok());
    const Status& s = store.status();
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    EXPECT_EQ(s.reason(), c.reason) << s.ToString();
    EXPECT_EQ(s.message().rfind(c.message_prefix, 0), 0u) << s.message();
    EXPECT_EQ(s.message().find(kPassword), std::string::npos) << s.message();
    std::vector<std::string> want_asked;
    if (*c.password_env != '\0') want_asked.push_back(c.password_env);
    EXPECT_EQ(asked, want_asked);
  }
}

}  // namespace
}  // namespace coderunner::service
