// The paths of relayed requests (src/api/relay_path.h): built from what a
// route matched, each segment validated and percent-encoded, table-driven.
#include "api/relay_path.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace coderunner::api
