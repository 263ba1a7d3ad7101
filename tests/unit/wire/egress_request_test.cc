// "network": "allowlist" is read strictly, and becomes a policy only for a
// tier that lists hosts and a job the service can give a proxy to.
#include "coderunner/wire/egress_request.h"

#include <gtest/gtest.h>

#include <string>

#include "coderunner/wire/execute_request.h"

namespace coderunner::wire {
namespace {

TEST(EgressRequestTest, TheNetworkFieldIsNoneOrAllowlist) {
  const struct {
    const char* body;
    bool ok;
    bool allowlist;
  } kCases[] = {
      {R"({"code":"x"})", true, false},
      {R"({"code":"x","network":"none"})", true, false},
      {R"({"code":"x","network":"allowlist"})", true, true},
      {R"({"code":"x","network":null})", true, false},
      {R"({"code":"x","network":"host"})", false, false},
      {R"({"code":"x","network":true})", false, false},
      {R"({"code":"x","network":"allowlist","cases":[{"stdin":"","expected_output":""}]})", false,
       false},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.body);
    auto r = ParseExecuteRequest(c.body, RequestCaps());
    ASSERT_EQ(r.ok(), c.ok) << r.status().ToString();
    if (!c.ok) {
      EXPECT_EQ(r.status().reason(), "invalid_request");
      EXPECT_NE(r.status().message().find("network"), std::string::npos);
      continue;
    }
    EXPECT_EQ(r->network_allowlist, c.allowlist);
  }
}

TEST(EgressRequestTest, APolicyOnlyForATierWithHostsAndARuncContainer) {
  config::Config config = config::DefaultConfig();
  config::TierConfig listed = *config.FindTier("pro");
  listed.egress_allow = {"api.example.com:443", "*.example.org:80"};
  listed.egress_private = {"10.8.0.0/16"};
  const config::TierConfig* unlisted = config.FindTier("pro");
  config.egress.max_bytes = 12345;
  const struct {
    bool asked;
    const config::TierConfig* tier;
    const char* runtime;
    const char* reason;  // "" = a policy (or none, when not asked).
  } kCases[] = {
      {false, nullptr, "", ""},
      {true, &listed, "", ""},
      {true, &listed, "runc", ""},
      {true, nullptr, "", "egress_not_allowed"},
      {true, unlisted, "", "egress_not_allowed"},
      {true, &listed, "runsc", "egress_unsupported"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(std::to_string(c.asked) + " " + c.runtime);
    auto policy = EgressPolicyOf(c.asked, config, c.tier, c.runtime);
    if (*c.reason != '\0') {
      ASSERT_FALSE(policy.ok());
      EXPECT_EQ(policy.status().reason(), c.reason);
      continue;
    }
    ASSERT_TRUE(policy.ok()) << policy.status().ToString();
    ASSERT_EQ(policy->has_value(), c.asked);
    if (!c.asked) continue;
    EXPECT_EQ((*policy)->allow.size(), 2u);
    EXPECT_TRUE((*policy)->allow[1].wildcard);
    EXPECT_EQ((*policy)->private_ranges.size(), 1u);
    EXPECT_EQ((*policy)->max_bytes, 12345);
  }
  // gVisor as the service's default, or no container at all.
  config.sandbox.runtime = "runsc";
  EXPECT_EQ(EgressPolicyOf(true, config, &listed, "").status().reason(), "egress_unsupported");
  config.sandbox.runtime = "";
  config.code_runner.runtime = config::RunMode::kNative;
  EXPECT_EQ(EgressPolicyOf(true, config, &listed, "").status().reason(), "egress_unsupported");
}

}  // namespace
}  // namespace coderunner::wire
