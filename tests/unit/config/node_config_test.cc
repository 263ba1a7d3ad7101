// node.advertise_url (read, checked, and its default from server.listen)
// and auth.keys[].admin.
#include <gtest/gtest.h>

#include <string>

#include "coderunner/config/config.h"

namespace coderunner::config {
namespace {

TEST(NodeConfigTest, AdvertiseUrlIsReadAsWritten) {
  struct Case {
    std::string yaml;
    std::string want;
  };
  const Case cases[] = {
      {"", ""},
      {"node: {advertise_url: \"\"}\n", ""},
      {"node: {advertise_url: \"http://node-a:8080\"}\n", "http://node-a:8080"},
      {"node: {advertise_url: \"https://a.example.com\"}\n", "https://a.example.com"},
      {"node: {advertise_url: \"http://10.0.0.7:8080/cr\"}\n", "http://10.0.0.7:8080/cr"},
      {"node: {advertise_url: \"http://[fd00::7]:8080\"}\n", "http://[fd00::7]:8080"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto r = ParseConfig(c.yaml);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->node.advertise_url, c.want);
  }
}

TEST(NodeConfigTest, BadAdvertiseUrlsFailNamingTheKey) {
  struct Case {
    std::string yaml;
    const char* says;
  };
  const Case cases[] = {
      {"node: {advertise_url: \"node-a:8080\"}\n", "http:// or https://"},
      {"node: {advertise_url: \"ftp://node-a\"}\n", "http:// or https://"},
      {"node: {advertise_url: \"http://\"}\n", "must name a host"},
      {"node: {advertise_url: \"http://:8080\"}\n", "must name a host"},
      {"node: {advertise_url: \"http:///path\"}\n", "must name a host"},
      {"node: {advertise_url: \"http://ops:secret@node-a\"}\n", "user info"},
      {"node: {advertise_url: \"http://node a:8080\"}\n", "spaces or control"},
      {"node: {advertise_url: \"http://node-a\\t\"}\n", "spaces or control"},
      {"node: {advertise_url: 8080}\n", "advertise_url"},
      {"node: {advertise: \"http://node-a\"}\n", "advertise"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto r = ParseConfig(c.yaml);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("node."), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
  }
}

TEST(NodeConfigTest, AdvertiseUrlDefaultsToTheListenAddress) {
  struct Case {
    const char* listen;
    const char* advertise_url;
    const char* want;
  };
  const Case cases[] = {
      {"127.0.0.1:8080", "", "http://127.0.0.1:8080"},
      {"10.1.2.3:9000", "", "http://10.1.2.3:9000"},
      {"0.0.0.0:8080", "", "http://host-7:8080"},  // Every address: the hostname.
      {"[::]:8080", "", "http://host-7:8080"},
      {":8080", "", "http://host-7:8080"},
      {"[::1]:8081", "", "http://[::1]:8081"},
      {"0.0.0.0:8080", "https://lb.example/node-7", "https://lb.example/node-7"},  // Given.
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.listen);
    Config cfg = DefaultConfig();
    cfg.server.listen = c.listen;
    cfg.node.advertise_url = c.advertise_url;
    EXPECT_EQ(AdvertiseUrl(cfg, "host-7"), c.want);
  }
}

TEST(NodeConfigTest, AdminKeysAreReadAndDefaultToFalse) {
  const std::string hash(64, 'a');
  auto r = ParseConfig("auth:\n  keys:\n    - {tenant: acme, tier: pro, key_sha256: \"" + hash +
                       "\"}\n    - {tenant: ops, tier: free, key_sha256: \"" +
                       std::string(64, 'b') + "\", admin: true}\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->auth.keys.size(), 2u);
  EXPECT_FALSE(r->auth.keys[0].admin);
  EXPECT_TRUE(r->auth.keys[1].admin);
  auto bad = ParseConfig("auth:\n  keys:\n    - {tenant: ops, tier: free, key_sha256: \"" + hash +
                         "\", admin: maybe}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("admin"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace coderunner::config
