// Which packages a tenant may have: packages.* and its tier together.
#include "coderunner/packages/package_policy.h"

#include <gtest/gtest.h>

namespace coderunner::packages {
namespace {

config::Config WithIndex() {
  config::Config c = config::DefaultConfig();
  c.packages.python_index_url = "http://mirror/simple/";
  return c;
}

TEST(PackagePolicyTest, TheTierNarrowsAndAddsToTheServiceWideLists) {
  config::Config c = WithIndex();
  c.packages.deny = {"Evil_Pkg"};
  config::TierConfig tier;
  tier.package_allow = {"crtiny", "crdepends"};
  tier.package_deny = {"crdepends"};
  tier.python_index_url = "https://tier-mirror/simple/";
  const struct {
    const config::TierConfig* tier;
    const char* name;
    bool allowed;
  } kCases[] = {
      {nullptr, "evil-pkg", false},  // Denied, whatever its spelling was.
      {nullptr, "anything", true},   // No allowlist: any name not denied.
      {&tier, "crtiny", true},
      {&tier, "crdepends", false},  // The tier's deny beats its allow.
      {&tier, "anything", false},   // Not on the tier's allowlist.
      {&tier, "evil-pkg", false},   // The service's deny holds for every tier.
  };
  for (const auto& k : kCases) {
    SCOPED_TRACE(k.name);
    PackagePolicy policy = PolicyFor(c, k.tier);
    Status s = CheckAllowed(policy.python, k.name);
    EXPECT_EQ(s.ok(), k.allowed) << s.ToString();
    if (!s.ok()) {
      EXPECT_EQ(s.reason(), kReasonPackageRefused);
      EXPECT_NE(s.message().find(k.name), std::string::npos);
    }
  }
  EXPECT_EQ(PolicyFor(c, &tier).python.index_url, "https://tier-mirror/simple/");
  EXPECT_EQ(PolicyFor(c, nullptr).python.index_url, "http://mirror/simple/");
}

TEST(PackagePolicyTest, ARequestIsCheckedWholeBeforeTheJobIsAccepted) {
  config::Config c = WithIndex();
  c.packages.deny = {"crrefused"};
  c.packages.max_requirements = 2;
  const struct {
    std::vector<std::string> texts;
    const char* reason;  // "" = accepted.
  } kCases[] = {
      {{}, ""},
      {{"crtiny==1.0", "CRDepends"}, ""},
      {{"crtiny", "crtiny==1.0"}, "invalid_package"},  // One project twice.
      {{"crtiny", "CRTiny"}, "invalid_package"},       // Also when spelled otherwise.
      {{"a", "b", "c"}, "invalid_request"},            // Past max_requirements.
      {{"crrefused"}, "package_refused"},
      {{"--pre"}, "invalid_package"},
  };
  for (const auto& k : kCases) {
    SCOPED_TRACE(::testing::PrintToString(k.texts));
    auto r = CheckPackageRequest(Ecosystem::kPython, k.texts, c, nullptr);
    EXPECT_EQ(r.ok() ? "" : r.status().reason(), std::string(k.reason));
  }
  config::Config none = config::DefaultConfig();
  EXPECT_EQ(CheckPackageRequest(Ecosystem::kPython, {"crtiny"}, none, nullptr).status().reason(),
            kReasonPackagesUnavailable);
  EXPECT_TRUE(CheckPackageRequest(Ecosystem::kPython, {}, none, nullptr).ok());
}

}  // namespace
}  // namespace coderunner::packages
