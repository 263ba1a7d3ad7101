// Requirements are read strictly: a project name and version clauses, and
// nothing that pip would take as an option, a URL, a path or a marker.
#include "coderunner/packages/requirement.h"

#include <gtest/gtest.h>

#include <string>

namespace coderunner::packages {
namespace {

TEST(RequirementTest, NamesAndVersionClausesAreTakenAndNormalized) {
  const struct {
    const char* text;
    const char* name;
    const char* specifier;
  } kCases[] = {
      {"tabulate", "tabulate", ""},
      {"tabulate==0.9.0", "tabulate", "==0.9.0"},
      {"Typing_Extensions>=4,<5", "typing-extensions", ">=4,<5"},
      {"zope.interface~=6.0", "zope-interface", "~=6.0"},
      {"a__b--c..d!=1.*", "a-b-c-d", "!=1.*"},
      {"numpy===1.26.4", "numpy", "===1.26.4"},
      {"torch==2.1.0+cpu", "torch", "==2.1.0+cpu"},
      {"x>1!2.0", "x", ">1!2.0"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.text);
    auto r = ParseRequirement(c.text);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->name, c.name);
    EXPECT_EQ(r->specifier, c.specifier);
    EXPECT_EQ(r->Text(), std::string(c.name) + c.specifier);
  }
}

TEST(RequirementTest, AnythingElseIsRefusedNamingIt) {
  const char* kRefused[] = {
      "",
      "-e git+https://example.com/x.git",
      "--index-url=http://evil/",
      "-r/etc/passwd",
      "crtiny @ file:///etc/passwd",
      "crtiny@https://evil/x.whl",
      "crtiny[extra]",
      "crtiny; os_name=='posix'",
      "crtiny ==1.0",
      "crtiny==",
      "crtiny==1.0,",
      "crtiny,",
      "crtiny==1.0;",
      "./local/path",
      "/abs/path.whl",
      "http://example.com/x.whl",
      "crtiny==1.0\n--extra-index-url=http://evil/",
      "-crtiny",
      "crtiny-",
      "crtiny=1.0",
      "crtiny==1 0",
      "crt\xc3\xaeny",
  };
  for (const char* text : kRefused) {
    SCOPED_TRACE(text);
    auto r = ParseRequirement(text);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().reason(), kReasonInvalidPackage);
  }
  EXPECT_FALSE(ParseRequirement(std::string(kMaxRequirementBytes + 1, 'a')).ok());
  EXPECT_TRUE(ParseRequirement(std::string(kMaxRequirementBytes, 'a')).ok());
}

TEST(RequirementTest, NpmNamesAndRangesAreTakenAsGiven) {
  const struct {
    const char* text;
    const char* name;
    const char* specifier;
  } kCases[] = {
      {"lodash", "lodash", ""},
      {"JSONStream@1", "JSONStream", "@1"},
      {"lodash@4", "lodash", "@4"},
      {"lodash@^4.17.21", "lodash", "@^4.17.21"},
      {"@types/node@~20.1", "@types/node", "@~20.1"},
      {"left-pad@>=1.0.0 <2", "left-pad", "@>=1.0.0 <2"},
      {"a.b_c~d@1 || 2", "a.b_c~d", "@1 || 2"},
      {"react@latest", "react", "@latest"},
      {"x@1.0.0-rc.1+build.5", "x", "@1.0.0-rc.1+build.5"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.text);
    auto r = ParseRequirementOf(Ecosystem::kNpm, c.text);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->name, c.name);
    EXPECT_EQ(r->specifier, c.specifier);
    EXPECT_EQ(r->Text(), c.text);
  }
}

TEST(RequirementTest, AnNpmSpecThatIsNotANameAndARangeIsRefused) {
  const char* kRefused[] = {
      "",
      "--registry=http://evil/",
      "--foreground-scripts",
      "-g",
      "lodash@",
      "lodash@ 4",
      "lodash@4 ",
      "lodash@1  2",
      ".hidden",
      "_private",
      "@scope",
      "@scope/",
      "@/name",
      "lodash@npm:evil@1",
      "lodash@git+https://evil/x.git",
      "lodash@file:../../etc",
      "lodash@https://evil/x.tgz",
      "evil/repo",
      "lodash@4\n--registry=x",
      "lodash@4#semver:1",
      "lo dash",
      "lodash@4;rm",
  };
  for (const char* text : kRefused) {
    SCOPED_TRACE(text);
    auto r = ParseRequirementOf(Ecosystem::kNpm, text);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().reason(), kReasonInvalidPackage);
  }
}

}  // namespace
}  // namespace coderunner::packages
