// OpenConfiguredStore: store.kind picks the store (sqlite here; postgres in
// store_opening_postgres_test.cc, or refused in a build without the fleet:
// store_opening_no_fleet_test.cc).
#include "service/store_opening.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "unit/temp_dir.h"

namespace coderunner::service {
namespace {

TEST(StoreOpeningTest, SqliteOpensJobsDbUnderDataDir) {
  const std::string dir = testutil::MakeTempDir("store-opening");
  config::Config cfg = config::DefaultConfig();
  cfg.data_dir = dir;
  std::vector<std::string> asked;
  auto store = OpenConfiguredStore(cfg, [&asked](const char* name) -> const char* {
    asked.push_back(name);
    return nullptr;
  });
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/jobs.db"));
  EXPECT_TRUE(store->jobs->Ping().ok());
  EXPECT_TRUE(asked.empty()) << "sqlite asked the environment for " << asked.front();
  store->jobs.reset();
  std::filesystem::remove_all(dir);
}

TEST(StoreOpeningTest, SqliteKeepsANodeRegistryAndAnOutboxOnly) {
  const std::string dir = testutil::MakeTempDir("store-opening");
  config::Config cfg = config::DefaultConfig();
  cfg.data_dir = dir;
  auto store = OpenConfiguredStore(cfg, [](const char*) -> const char* { return nullptr; });
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_NE(store->nodes, nullptr);
  EXPECT_NE(store->outbox, nullptr);
  EXPECT_EQ(store->bounded, nullptr);
  EXPECT_EQ(store->rate_buckets, nullptr);
  EXPECT_EQ(store->sandbox_owners, nullptr);
  store->jobs.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace coderunner::service
