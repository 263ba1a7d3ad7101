// OpenConfiguredStore and OpenConfiguredNotices with store.kind postgres in
// a build without the fleet (CODERUNNER_FLEET=OFF): refused, before the
// environment is read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "service/store_opening.h"

namespace coderunner::service {
namespace {

TEST(StoreOpeningNoFleetTest, PostgresIsFleetNotBuilt) {
  config::Config cfg = config::DefaultConfig();
  cfg.store.kind = "postgres";
  cfg.store.url = "host=/nonexistent/coderunner-store-opening-test dbname=coderunner";
  cfg.store.password_env = "CR_TEST_PG_PASSWORD";
  std::vector<std::string> asked;
  auto env = [&asked](const char* name) -> const char* {
    asked.push_back(name);
    return "s3cret-Pw";
  };
  auto store = OpenConfiguredStore(cfg, env);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(store.status().reason(), kReasonFleetNotBuilt);
  auto notices = OpenConfiguredNotices(cfg, env);
  ASSERT_FALSE(notices.ok());
  EXPECT_EQ(notices.status().reason(), kReasonFleetNotBuilt);
  EXPECT_TRUE(asked.empty());
}

}  // namespace
}  // namespace coderunner::service
