#include "api/volume_request.h"

#include <gtest/gtest.h>

#include <string>

namespace coderunner::api {
namespace {

TEST(ParseVolumeRequestTest, ChecksTheShapeOfTheBody) {
  struct Case {
    std::string body;
    const char* reason;  // nullptr: parsed.
    const char* name;
    int64_t size_bytes;
  };
  const Case cases[] = {
      {R"({"size_bytes":4096,"name":"data"})", nullptr, "data", 4096},
      {R"({"size_bytes":1,"name":null})", nullptr, "", 1},
      // Above volumes.max_size_bytes is the service's to refuse.
      {R"({"size_bytes":1099511627776})", nullptr, "", 1099511627776},
      {"", "invalid_json", nullptr, 0},
      {"{", "invalid_json", nullptr, 0},
      {"[[[[1]]]]", "json_too_deep", nullptr, 0},
      {"[]", "invalid_request", nullptr, 0},
      {"{}", "invalid_request", nullptr, 0},
      {R"({"size_bytes":-1})", "invalid_request", nullptr, 0},
      {R"({"size_bytes":0})", "invalid_request", nullptr, 0},
      {R"({"size_bytes":1.5})", "invalid_request", nullptr, 0},
      {R"({"size_bytes":"1"})", "invalid_request", nullptr, 0},
      {R"({"size_bytes":1,"extra":1})", "invalid_request", nullptr, 0},
      {R"({"size_bytes":1,"name":"a/b"})", "invalid_request", nullptr, 0},
      {R"({"size_bytes":1,"name":""})", "invalid_request", nullptr, 0},
      {R"({"size_bytes":1,"name":1})", "invalid_request", nullptr, 0},
      {R"({"size_bytes":1,"name":")" + std::string(65, 'a') + "\"}", "invalid_request", nullptr, 0},
  };
  JsonBounds bounds;
  bounds.max_depth = 3;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto r = ParseVolumeRequest(c.body, bounds);
    if (c.reason != nullptr) {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(r.status().reason(), c.reason);
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->name, c.name);
    EXPECT_EQ(r->size_bytes, c.size_bytes);
  }
}

}  // namespace
}  // namespace coderunner::api
