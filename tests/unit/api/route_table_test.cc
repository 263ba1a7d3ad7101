#include "coderunner/api/route_table.h"

#include <gtest/gtest.h>

namespace coderunner::api {
namespace {

TEST(OpenApiPathTest, CaptureGroupsBecomeTemplates) {
  struct Case {
    const char* pattern;
    const char* path;
  };
  const Case cases[] = {
      {"/healthz", "/healthz"},
      {"/v1/jobs/(job-[0-9a-f]{24})", "/v1/jobs/{id}"},
      {"/v1/jobs/(job-[0-9a-f]{24})/wait", "/v1/jobs/{id}/wait"},
      {"/v1/jobs/(job-[0-9a-f]{24})/artifacts/(.+)", "/v1/jobs/{id}/artifacts/{path}"},
      {"/v1/volumes/([A-Za-z0-9_-]+)/files/(.*)", "/v1/volumes/{id}/files/{path}"},
      {"/api/v2/runtimes", "/api/v2/runtimes"},
  };
  for (const auto& c : cases) EXPECT_EQ(OpenApiPath(c.pattern), c.path) << c.pattern;
}

TEST(RouteTableTest, RecordsEveryRegistrationInOrder) {
  httplib::Server http;
  RouteTable table(http);
  auto handler = [](const httplib::Request&, httplib::Response&) {};
  table.Get("/a", handler).Post("/b/(x-[0-9]+)", handler).Delete("/b/(x-[0-9]+)", handler);
  ASSERT_EQ(table.routes().size(), 3u);
  EXPECT_EQ(table.routes()[0].method, "GET");
  EXPECT_EQ(table.routes()[1].method, "POST");
  EXPECT_EQ(table.routes()[1].pattern, "/b/(x-[0-9]+)");
  EXPECT_EQ(table.routes()[2].method, "DELETE");
  EXPECT_EQ(table.routes()[2].path, "/b/{id}");
}

}  // namespace
}  // namespace coderunner::api
