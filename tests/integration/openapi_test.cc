// GET /openapi.json on a live server.
#include <string>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using OpenApiTest = EngineTest;

TEST_F(OpenApiTest, ServesTheOpenApiDocumentWithoutAKey) {
  HttpAnswer a = server_->Get("/openapi.json");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.headers["content-type"], "application/json");
  ASSERT_TRUE(a.json.is_object()) << a.body.substr(0, 200);
  EXPECT_EQ(a.json["openapi"].get<std::string>().rfind("3.", 0), 0u);
  for (const char* path : {"/healthz", "/v1/execute", "/v1/jobs/{id}", "/api/v2/execute",
                           "/api/v2/runtimes", "/openapi.json"}) {
    EXPECT_TRUE(a.json["paths"].contains(path)) << path;
  }
}

}  // namespace
}  // namespace coderunner::testing
