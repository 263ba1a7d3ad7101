#include "api/mcp/mcp_content.h"

#include <gtest/gtest.h>

#include <string>

#include "api/mcp/mcp_routes.h"
#include "coderunner/config/config.h"

namespace coderunner::api {
namespace {

TEST(McpContentTest, ResourceUrisRoundTripEveryPath) {
  const char* paths[] = {"plot.png", "dir/a b.csv", "naïve%20.txt", "x#y?z", "deep/er/file"};
  for (const char* path : paths) {
    SCOPED_TRACE(path);
    auto job = mcp::ParseResourceUri(mcp::JobArtifactUri("job-1", path));
    ASSERT_TRUE(job.has_value());
    EXPECT_EQ(job->kind, mcp::ResourceRef::Kind::kJobArtifact);
    EXPECT_EQ(job->owner, "job-1");
    EXPECT_EQ(job->path, path);
    auto file = mcp::ParseResourceUri(mcp::SandboxFileUri("sbx-2", path));
    ASSERT_TRUE(file.has_value());
    EXPECT_EQ(file->kind, mcp::ResourceRef::Kind::kSandboxFile);
    EXPECT_EQ(file->owner, "sbx-2");
    EXPECT_EQ(file->path, path);
  }
}

TEST(McpContentTest, OtherUrisNameNothing) {
  const char* uris[] = {"test://static/text",
                        "coderunner://jobs/job-1/artifacts/",
                        "coderunner://jobs//artifacts/a",
                        "coderunner://jobs/job-1/files/a",
                        "coderunner://volumes/v/files/a",
                        "coderunner://jobs/job-1/artifacts/bad%2",
                        "coderunner://jobs/job-1/artifacts/bad%zz"};
  for (const char* uri : uris) EXPECT_FALSE(mcp::ParseResourceUri(uri).has_value()) << uri;
}

TEST(McpContentTest, MediaTypesComeFromTheExtension) {
  const std::pair<const char*, const char*> cases[] = {
      {"plot.png", "image/png"},
      {"photo.JPG", "image/jpeg"},
      {"chart.svg", "image/svg+xml"},
      {"data.csv", "text/csv"},
      {"out.json", "application/json"},
      {"blob", "application/octet-stream"},
      {"dir.png/file", "application/octet-stream"},
  };
  for (const auto& [path, type] : cases) EXPECT_EQ(mcp::MimeTypeOf(path), type) << path;
  EXPECT_TRUE(mcp::IsInlineImage("image/png"));
  EXPECT_FALSE(mcp::IsInlineImage("image/gif"));
}

TEST(McpContentTest, OnlyLoopbackOrConfiguredHostsAndOriginsPass) {
  config::McpConfig none;
  config::McpConfig named;
  named.allowed_hosts = {"coderunner.internal"};
  named.allowed_origins = {"https://app.example.com"};
  struct Case {
    const config::McpConfig* config;
    const char* host;
    const char* origin;
    bool allowed;
  };
  const Case cases[] = {
      {&none, "127.0.0.1:8080", "", true},
      {&none, "localhost:8080", "http://localhost:3000", true},
      {&none, "[::1]:8080", "http://[::1]:8080", true},
      {&none, "LOCALHOST", "", true},
      {&none, "evil.example.com", "http://evil.example.com", false},
      {&none, "evil.example.com:8080", "", false},
      {&none, "127.0.0.1:8080", "http://evil.example.com", false},
      {&none, "127.0.0.1:8080", "null", false},
      {&none, "", "", false},
      {&none, "localhost.evil.example.com", "", false},
      {&named, "coderunner.internal:8080", "", true},
      {&named, "127.0.0.1:8080", "https://app.example.com", true},
      {&named, "coderunner.internal", "https://other.example.com", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(McpHostAndOriginAllowed(*c.config, c.host, c.origin), c.allowed)
        << c.host << " " << c.origin;
  }
}

}  // namespace
}  // namespace coderunner::api
