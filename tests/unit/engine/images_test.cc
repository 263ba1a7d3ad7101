#include "coderunner/engine/images.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::engine {
namespace {

using ::testing::HasSubstr;
using testutil::FakeTransport;
using testutil::Recording;

constexpr std::chrono::milliseconds kTimeout{500};

TEST(ImageClientTest, InspectsRecordedImageForBothEngines) {
  struct Case {
    const char* engine;
    const char* tag;
    bool has_digest;
  };
  const std::vector<Case> cases = {{"docker", "coderunner/bash:5", false},
                                   {"podman", "localhost/coderunner/bash:5", true}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.engine);
    FakeTransport t;
    ImageClient images(t, kTimeout);
    Recording r = t.Replay(c.engine, "image_inspect");
    auto info = images.Inspect("coderunner/bash:5");
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    EXPECT_EQ(t.last_request().path, "/images/coderunner/bash:5/json");
    EXPECT_EQ(t.last_request().timeout, kTimeout);
    EXPECT_EQ(info->id, r.body["Id"].get<std::string>());
    EXPECT_EQ(info->id.rfind("sha256:", 0), 0u);
    EXPECT_THAT(info->repo_tags, ::testing::Contains(c.tag));
    EXPECT_EQ(!info->repo_digests.empty(), c.has_digest);
    EXPECT_EQ(info->labels.at("org.coderunner.rootfs-sha256"),
              r.body["Config"]["Labels"]["org.coderunner.rootfs-sha256"].get<std::string>());
  }
}

TEST(ImageClientTest, InspectReadsConfigLabels) {
  using Labels = std::map<std::string, std::string>;
  struct Case {
    const char* name;
    nlohmann::json config;  // The answer's "Config"; null: no "Config" key.
    Labels want;
  };
  const std::vector<Case> cases = {
      {"no Config", nullptr, {}},
      {"Config not an object", "x", {}},
      {"no Labels", nlohmann::json::object(), {}},
      {"Labels null (upstream images)", {{"Labels", nullptr}}, {}},
      {"Labels not an object", {{"Labels", nlohmann::json::array({"a", "b"})}}, {}},
      {"string labels",
       {{"Labels", {{"org.coderunner.language-version", "3.11.2"}, {"a", ""}}}},
       {{"org.coderunner.language-version", "3.11.2"}, {"a", ""}}},
      {"non-string values left out",
       {{"Labels", {{"n", 1}, {"o", {{"x", "y"}}}, {"s", "v"}}}},
       {{"s", "v"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    nlohmann::json body = {{"Id", "sha256:abc"}};
    if (!c.config.is_null()) body["Config"] = c.config;
    FakeTransport t;
    ImageClient images(t, kTimeout);
    t.Answer("GET", "/images/x/json", 200, body.dump());
    auto info = images.Inspect("x");
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    EXPECT_EQ(info->labels, c.want);
  }
}

TEST(ImageClientTest, InspectAddsSha256PrefixToBareId) {
  Recording r = testutil::LoadRecording("podman", "image_inspect");
  nlohmann::json bare = r.body;
  std::string full = bare["Id"];
  bare["Id"] = full.substr(7);
  FakeTransport t;
  ImageClient images(t, kTimeout);
  t.Answer("GET", r.request.path, 200, bare.dump());
  auto info = images.Inspect("coderunner/bash:5");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->id, full);
}

TEST(ImageClientTest, MissingImageIsNotFoundWithEngineMessage) {
  for (const char* engine : {"docker", "podman"}) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ImageClient images(t, kTimeout);
    Recording r = t.Replay(engine, "image_inspect_missing");
    auto info = images.Inspect("coderunner/missing:0");
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.status().code(), StatusCode::kNotFound);
    EXPECT_THAT(info.status().message(), HasSubstr(r.body["message"].get<std::string>()));
  }
}

TEST(ImageClientTest, RejectsBadNamesWithoutCallingTheEngine) {
  FakeTransport t;
  ImageClient images(t, kTimeout);
  for (const std::string name : {"", "../containers/x", "a b", "a?x=1", "a#b", "a\nb", "a%2e"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(images.Inspect(name).status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(t.requests().empty());
}

TEST(ImageClientTest, AnswerWithoutIdIsInternal) {
  FakeTransport t;
  ImageClient images(t, kTimeout);
  t.Answer("GET", "/images/x/json", 200, R"({"RepoTags":[]})");
  EXPECT_EQ(images.Inspect("x").status().reason(), "engine_bad_response");
  t.Answer("GET", "/images/x/json", 200, "garbage");
  EXPECT_EQ(images.Inspect("x").status().reason(), "engine_bad_response");
}

TEST(ImageClientTest, TransportErrorIsUnavailable) {
  FakeTransport t;
  ImageClient images(t, kTimeout);
  t.Fail("GET", "/images/x/json", UnavailableError("connection refused"));
  EXPECT_EQ(images.Inspect("x").status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace coderunner::engine
