// The paths of relayed requests (src/api/relay_path.h): built from what a
// route matched, each segment validated and percent-encoded, table-driven.
#include "api/relay_path.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace coderunner::api {
namespace {

constexpr char kSandbox[] = "sbx-0123456789abcdef01234567";
constexpr char kJob[] = "job-0123456789abcdef01234567";

TEST(RelayPathTest, BuildsTheMatchedRouteWithEachSegmentEncoded) {
  const std::string sandbox = std::string("/v1/sandboxes/") + kSandbox;
  struct Case {
    const char* name;
    SandboxRoute route;
    std::string file;
    std::string want;
  };
  const Case cases[] = {
      {"record", SandboxRoute::kRecord, "", sandbox},
      {"execute", SandboxRoute::kExecute, "", sandbox + "/execute"},
      {"files", SandboxRoute::kFiles, "", sandbox + "/files"},
      {"a file", SandboxRoute::kFile, "out/r.csv", sandbox + "/files/out/r.csv"},
      {"space, '?' and '#'", SandboxRoute::kFile, "a b?c#d", sandbox + "/files/a%20b%3Fc%23d"},
      {"a literal %2e%2e", SandboxRoute::kFile, "%2e%2e/x", sandbox + "/files/%252e%252e/x"},
      {"UTF-8", SandboxRoute::kFile, "\xc3\xbc.txt", sandbox + "/files/%C3%BC.txt"},
      {"three dots are a name", SandboxRoute::kFile, ".../..x", sandbox + "/files/.../..x"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = SandboxRelayPath({c.route, kSandbox, c.file});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.want);
  }
  auto artifact = ArtifactRelayPath(kJob, "dir/a b.txt");
  ASSERT_TRUE(artifact.ok()) << artifact.status().ToString();
  EXPECT_EQ(*artifact, std::string("/v1/jobs/") + kJob + "/artifacts/dir/a%20b.txt");
}

// What the owner would refuse is refused here, with the owner's answer.
TEST(RelayPathTest, RefusesUnsafeFilePathsAsTheOwnerDoes) {
  const char* const files[] = {
      "",          "..",    ".",    "../metrics",  "../../../../metrics",
      "a/../../b", "a/./b", "a//b", "/etc/passwd", "a/",
      "a\\..\\b",  "a\n/b", "x/..",
  };
  for (const char* file : files) {
    SCOPED_TRACE(file);
    auto sandbox = SandboxRelayPath({SandboxRoute::kFile, kSandbox, file});
    EXPECT_EQ(sandbox.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(sandbox.status().reason(), "invalid_path");
    auto artifact = ArtifactRelayPath(kJob, file);
    EXPECT_EQ(artifact.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(artifact.status().reason(), "invalid_path");
  }
}

TEST(RelayPathTest, RefusesIdsNoRouteCouldMatch) {
  const char* const ids[] = {
      "",
      "sbx-0123456789abcdef0123456",    // 23 digits.
      "sbx-0123456789abcdef012345678",  // 25 digits.
      "sbx-0123456789ABCDEF01234567",   // Upper case.
      "sbx-0123456789abcdef0123456/",
      "sbx-../../../../../metrics/x",
      "job-0123456789abcdef01234567",  // Another kind's.
  };
  for (const char* id : ids) {
    SCOPED_TRACE(id);
    auto got = SandboxRelayPath({SandboxRoute::kRecord, id, ""});
    EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(got.status().reason(), "sandbox_not_found");
    std::string job(id);
    if (job.rfind("job-", 0) == 0) job.replace(0, 4, "sbx-");  // Another kind's again.
    auto artifact = ArtifactRelayPath(job, "out.txt");
    EXPECT_EQ(artifact.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(artifact.status().reason(), "job_not_found");
  }
}

// A route that relays itself (E2B's): its own pattern, each group the
// matched text encoded, the query it reads encoded.
TEST(RelayPathTest, PatternRelayPathFillsTheRoutesGroupsAndQuery) {
  using Query = std::vector<std::pair<std::string, std::string>>;
  struct Case {
    const char* name;
    const char* pattern;
    std::vector<std::string> groups;
    Query query;
    std::string want;  // "" = refused invalid_path.
  };
  const std::string sandbox = "/e2b/sandboxes/(sbx-[0-9a-f]{24})";
  const Case cases[] = {
      {"a literal route", "/e2b/process.Process/Start", {}, {}, "/e2b/process.Process/Start"},
      {"an id", sandbox.c_str(), {kSandbox}, {}, std::string("/e2b/sandboxes/") + kSandbox},
      {"a group then more",
       "/e2b/contexts/([^/]+)/restart",
       {"ctx 1/2"},
       {},
       "/e2b/contexts/ctx%201%2F2/restart"},
      {"the query, encoded",
       "/e2b/files",
       {},
       {{"path", "/home/user/a b&c=d"}, {"username", "user"}},
       "/e2b/files?path=%2Fhome%2Fuser%2Fa%20b%26c%3Dd&username=user"},
      {"an empty group", "/e2b/contexts/([^/]+)", {""}, {}, ""},
      {"a dot group", "/e2b/contexts/([^/]+)", {"."}, {}, ""},
      {"a dot-dot group", "/e2b/contexts/([^/]+)/restart", {".."}, {}, ""},
      {"a group too few", "/e2b/contexts/([^/]+)", {}, {}, ""},
      {"a group too many", "/e2b/execute", {"x"}, {}, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = PatternRelayPath(c.pattern, c.groups, c.query);
    if (c.want.empty()) {
      EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(got.status().reason(), "invalid_path");
    } else {
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(*got, c.want);
    }
  }
}

}  // namespace
}  // namespace coderunner::api
