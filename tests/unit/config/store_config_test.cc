// The store section of the config: kind, url (never with a password),
// password_env and the pool's bounds.
#include <gtest/gtest.h>

#include <string>

#include "coderunner/config/config.h"

namespace coderunner::config {
namespace {

TEST(StoreConfigTest, DefaultsAreTheSqliteStore) {
  auto c = ParseConfig("");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->store.kind, "sqlite");
  EXPECT_EQ(c->store.url, "");
  EXPECT_EQ(c->store.password_env, "");
  EXPECT_EQ(c->store.max_connections, 8);
  EXPECT_EQ(c->store.connect_timeout_ms, 5000);
  EXPECT_EQ(c->store.call_timeout_ms, 30000);
  EXPECT_EQ(c->store.lease_ms, 15000);
  EXPECT_EQ(c->store.max_attempts, 2);
}

TEST(StoreConfigTest, LeaseAndAttemptsAreReadAsWritten) {
  struct Case {
    std::string yaml;
    int64_t lease_ms;
    int max_attempts;
  };
  const Case cases[] = {
      {"store: {lease_ms: 1000, max_attempts: 1}\n", 1000, 1},
      {"store: {lease_ms: 15s}\n", 15000, 2},
      {"store: {lease_ms: 10m, max_attempts: 10}\n", 600000, 10},
      {"store: {max_attempts: 3}\n", 15000, 3},
  };
  EXPECT_EQ(ParseConfig("store: {call_timeout_ms: 2s}\n")->store.call_timeout_ms, 2000);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto r = ParseConfig(c.yaml);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->store.lease_ms, c.lease_ms);
    EXPECT_EQ(r->store.max_attempts, c.max_attempts);
  }
}

TEST(StoreConfigTest, GoodSectionsAreReadAsWritten) {
  struct Case {
    std::string yaml;
    std::string kind;
    std::string url;
    std::string password_env;
    int max_connections;
    int connect_timeout_ms;
  };
  const Case cases[] = {
      {"store: {kind: sqlite}\n", "sqlite", "", "", 8, 5000},
      {"store: {kind: postgres, url: \"host=/run/pg dbname=cr\"}\n", "postgres",
       "host=/run/pg dbname=cr", "", 8, 5000},
      {"store: {kind: postgres, url: \"postgresql://cr@db:5432/cr?sslmode=require\", "
       "password_env: CR_PG_PASSWORD, max_connections: 256, connect_timeout_ms: 2s}\n",
       "postgres", "postgresql://cr@db:5432/cr?sslmode=require", "CR_PG_PASSWORD", 256, 2000},
      // A passfile, or a database whose name merely contains the word.
      {"store: {kind: postgres, url: \"dbname=passwords passfile=/etc/cr/pgpass\", "
       "max_connections: 1, connect_timeout_ms: 100}\n",
       "postgres", "dbname=passwords passfile=/etc/cr/pgpass", "", 1, 100},
      // '@' and ':' after the authority are no user info.
      {"store: {kind: postgres, url: \"postgres://db:5432/cr?application_name=a:b@c\"}\n",
       "postgres", "postgres://db:5432/cr?application_name=a:b@c", "", 8, 5000},
      {"store: {kind: postgres, url: \"postgres://cr@[::1]:5432/cr\", connect_timeout_ms: 1m}\n",
       "postgres", "postgres://cr@[::1]:5432/cr", "", 8, 60000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto r = ParseConfig(c.yaml);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->store.kind, c.kind);
    EXPECT_EQ(r->store.url, c.url);
    EXPECT_EQ(r->store.password_env, c.password_env);
    EXPECT_EQ(r->store.max_connections, c.max_connections);
    EXPECT_EQ(r->store.connect_timeout_ms, c.connect_timeout_ms);
  }
}

TEST(StoreConfigTest, BadSectionsFailNamingTheKeyAndNeverTheSecret) {
  struct Case {
    std::string yaml;
    const char* names;  // The key the error names.
    const char* says;   // And what it says about it.
  };
  constexpr const char* kPassword = "must not hold a password";
  const Case cases[] = {
      {"store: {kind: mysql}\n", "store.kind", "sqlite or postgres"},
      {"store: {kind: postgres}\n", "store.url", "is required"},
      {"store: {url: \"host=/run/pg\"}\n", "store.url", "postgres only"},
      {"store: {kind: postgres, url: \"host=/run/pg password=hunter2\"}\n", "store.url", kPassword},
      {"store: {kind: postgres, url: \"host=/run/pg PASSWORD = hunter2\"}\n", "store.url",
       kPassword},
      {"store: {kind: postgres, url: \"password=hunter2 host=/run/pg\"}\n", "store.url", kPassword},
      {"store: {kind: postgres, url: \"host=/run/pg\\tpassword=hunter2\"}\n", "store.url",
       "control characters"},
      {"store: {kind: postgres, url: \"postgresql://cr:hunter2@db/cr\"}\n", "store.url", kPassword},
      {"store: {kind: postgres, url: \"postgres://cr:@db/cr\"}\n", "store.url", kPassword},
      {"store: {kind: postgres, url: \"postgresql://cr@db/cr?password=hunter2\"}\n", "store.url",
       kPassword},
      {"store: {kind: postgres, url: \"postgresql://db/cr?sslmode=require&password=hunter2\"}\n",
       "store.url", kPassword},
      {"store: {kind: postgres, url: \"postgresql://db/cr?pass%77ord=hunter2\"}\n", "store.url",
       kPassword},
      {"store: {kind: postgres, url: \"host=db\\ndbname=cr\"}\n", "store.url",
       "control characters"},
      {"store: {kind: postgres, url: \"host=db\\x7f\"}\n", "store.url", "control characters"},
      {"store: {kind: postgres, url: \"host=db\", password_env: \"hunter2!\"}\n",
       "store.password_env", "NAME of an environment variable"},
      {"store: {max_connections: 0}\n", "store.max_connections", "between 1 and 256"},
      {"store: {max_connections: 257}\n", "store.max_connections", "between 1 and 256"},
      {"store: {connect_timeout_ms: 99}\n", "store.connect_timeout_ms", "at least 100"},
      {"store: {connect_timeout_ms: soon}\n", "store.connect_timeout_ms", ""},
      {"store: {call_timeout_ms: 99}\n", "store.call_timeout_ms", "at least 100"},
      {"store: {pool: 3}\n", "store.pool", "unknown key"},
      {"store: {lease_ms: 999}\n", "store.lease_ms", "between 1000 and 600000"},
      {"store: {lease_ms: 11m}\n", "store.lease_ms", "between 1000 and 600000"},
      {"store: {max_attempts: 0}\n", "store.max_attempts", "between 1 and 10"},
      {"store: {max_attempts: 11}\n", "store.max_attempts", "between 1 and 10"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto r = ParseConfig(c.yaml);
    ASSERT_FALSE(r.ok());
    const std::string& m = r.status().message();
    EXPECT_NE(m.find(std::string(c.names) + ": "), std::string::npos) << m;
    EXPECT_NE(m.find(c.says), std::string::npos) << m;
    EXPECT_EQ(m.find("hunter2"), std::string::npos) << "the error quotes the secret: " << m;
  }
}

TEST(StoreConfigTest, PasswordErrorPointsAtPasswordEnv) {
  auto r = ParseConfig("store: {kind: postgres, url: \"postgresql://cr:pw@db/cr\"}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("store.password_env"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace coderunner::config
