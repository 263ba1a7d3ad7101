// OpenConfiguredStore: store.kind picks the store; the postgres password
// comes from store.password_env and never shows in an error.
#include "service/store_opening.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace coderunner::service {
namespace {

std::string MakeTempDir() {
  std::string tmpl = ::testing::TempDir() + "/coderunner-store-opening-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  char* dir = mkdtemp(buf.data());
  if (dir == nullptr) throw std::runtime_error("mkdtemp failed");
  return dir;
}

TEST(StoreOpeningTest, SqliteOpensJobsDbUnderDataDir) {
  const std::string dir = MakeTempDir();
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
  const std::string dir = MakeTempDir();
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
