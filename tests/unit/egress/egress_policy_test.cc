// The allowlist is read strictly, matches hosts and ports exactly (a
// wildcard only below its suffix), and no address that is not public is
// reached unless the policy lists its block.
#include "coderunner/egress/egress_policy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <string>

namespace coderunner::egress {
namespace {

TEST(EgressPolicyTest, RulesAreReadStrictly) {
  const struct {
    const char* text;
    bool ok;
    const char* host;
    int port;
    bool wildcard;
  } kCases[] = {
      {"api.example.com:443", true, "api.example.com", 443, false},
      {"API.Example.COM:80", true, "api.example.com", 80, false},
      {"*.example.com:443", true, "example.com", 443, true},
      {"127.0.0.1:8080", true, "127.0.0.1", 8080, false},
      {"[::1]:8443", true, "::1", 8443, false},
      {"example.com", false, "", 0, false},
      {"example.com:", false, "", 0, false},
      {"example.com:0", false, "", 0, false},
      {"example.com:65536", false, "", 0, false},
      {"example.com:44x", false, "", 0, false},
      {":443", false, "", 0, false},
      {"*:443", false, "", 0, false},
      {"a..b:443", false, "", 0, false},
      {"a b:443", false, "", 0, false},
      {"evil.com/x:443", false, "", 0, false},
      {"user@host:443", false, "", 0, false},
      {"[nothex]:443", false, "", 0, false},
      {"*.*.example.com:443", false, "", 0, false},
      {"*.[::1]:443", false, "", 0, false},
      {"[::1]", false, "", 0, false},
      {"[::1]x:443", false, "", 0, false},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.text);
    auto rule = ParseEgressRule(c.text);
    ASSERT_EQ(rule.ok(), c.ok) << rule.status().ToString();
    if (!c.ok) {
      EXPECT_EQ(rule.status().reason(), "invalid_egress_rule");
      continue;
    }
    EXPECT_EQ(rule->host, c.host);
    EXPECT_EQ(rule->port, c.port);
    EXPECT_EQ(rule->wildcard, c.wildcard);
  }
}

TEST(EgressPolicyTest, HostsMatchExactlyAndWildcardsOnlyBelowTheirSuffix) {
  EgressPolicy p;
  for (const char* text : {"api.example.com:443", "*.cdn.example.org:443", "10.1.2.3:80"}) {
    p.allow.push_back(*ParseEgressRule(text));
  }
  const struct {
    const char* host;
    int port;
    bool allowed;
  } kCases[] = {
      {"api.example.com", 443, true},   {"API.EXAMPLE.COM", 443, true},
      {"api.example.com", 80, false},   {"example.com", 443, false},
      {"xapi.example.com", 443, false}, {"api.example.com.evil.net", 443, false},
      {"a.cdn.example.org", 443, true}, {"a.b.cdn.example.org", 443, true},
      {"cdn.example.org", 443, false},  {"xcdn.example.org", 443, false},
      {"10.1.2.3", 80, true},           {"10.1.2.4", 80, false},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(std::string(c.host) + ":" + std::to_string(c.port));
    EXPECT_EQ(AllowsHost(p, c.host, c.port), c.allowed);
  }
}

TEST(EgressPolicyTest, OnlyPublicAddressesUnlessTheirBlockIsListed) {
  EgressPolicy p;
  p.private_ranges.push_back(*ParseAddressRange("127.0.0.1"));
  p.private_ranges.push_back(*ParseAddressRange("10.8.0.0/16"));
  p.private_ranges.push_back(*ParseAddressRange("fd00:1::/32"));
  const struct {
    const char* address;
    bool reached;
  } kCases[] = {
      {"93.184.216.34", true}, {"127.0.0.1", true},         {"127.0.0.2", false},
      {"10.8.255.1", true},    {"10.9.0.1", false},         {"169.254.169.254", false},
      {"192.168.1.1", false},  {"0.0.0.0", false},          {"2606:2800::1", true},
      {"::1", false},          {"fd00:1:2::3", true},       {"fd00:2::3", false},
      {"fe80::1", false},      {"::ffff:127.0.0.1", false},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.address);
    sockaddr_storage ss{};
    if (inet_pton(AF_INET, c.address, &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr) == 1) {
      ss.ss_family = AF_INET;
    } else {
      ASSERT_EQ(inet_pton(AF_INET6, c.address, &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr),
                1);
      ss.ss_family = AF_INET6;
    }
    EXPECT_EQ(MayConnectTo(p, reinterpret_cast<sockaddr*>(&ss)), c.reached);
  }
}

TEST(EgressPolicyTest, AddressBlocksAreReadStrictly) {
  for (const char* bad :
       {"", "10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "fd00::/129", "host/8", "10.0.0.0/8x"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(ParseAddressRange(bad).ok());
  }
  EXPECT_EQ(ParseAddressRange("fd00::/8")->prefix, 8);
  EXPECT_EQ(ParseAddressRange("10.0.0.0/8")->family, AF_INET);
}

}  // namespace
}  // namespace coderunner::egress
