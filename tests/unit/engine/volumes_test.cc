#include "coderunner/engine/volumes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::engine {
namespace {

using testutil::FakeTransport;
using testutil::Recording;

constexpr std::chrono::milliseconds kTimeout{500};
const std::vector<std::string> kEngines = {"docker", "podman"};

TEST(VolumeClientTest, CreateSendsLocalDriverBindAndReadsTheAnswer) {
  for (const auto& e : kEngines) {
    SCOPED_TRACE(e);
    FakeTransport t;
    VolumeClient volumes(t, kTimeout);
    Recording r = t.Replay(e, "volume_create");
    auto v =
        volumes.Create("coderunner-rec-vol", {{"io.coderunner.tenant", "acme"}},
                       {{"type", "none"}, {"device", "/tmp/coderunner-rec-vol"}, {"o", "bind"}});
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    nlohmann::json sent = nlohmann::json::parse(t.last_request().body);
    EXPECT_EQ(sent["Driver"], "local");
    EXPECT_EQ(sent["DriverOpts"]["o"], "bind");
    EXPECT_EQ(sent["Labels"]["io.coderunner.tenant"], "acme");
    EXPECT_EQ(v->name, "coderunner-rec-vol");
    EXPECT_EQ(v->options.at("device"), "/tmp/coderunner-rec-vol");
    EXPECT_EQ(v->labels.at("io.coderunner.volume"), "vol-0123456789abcdef01234567");
  }
}

TEST(VolumeClientTest, InspectMapsAnswersOfBothEngines) {
  struct Case {
    const char* recording;
    const char* name;
    StatusCode code;
  };
  for (const auto& e : kEngines) {
    for (const Case& c :
         {Case{"volume_inspect", "coderunner-rec-vol", StatusCode::kOk},
          Case{"volume_inspect_missing", "coderunner-rec-missing", StatusCode::kNotFound}}) {
      SCOPED_TRACE(e + "/" + c.recording);
      FakeTransport t;
      VolumeClient volumes(t, kTimeout);
      t.Replay(e, c.recording);
      auto v = volumes.Inspect(c.name);
      EXPECT_EQ(v.status().code(), c.code) << v.status().ToString();
      if (v.ok()) {
        EXPECT_EQ(v->labels.at("io.coderunner.tenant"), "acme");
      }
    }
  }
}

TEST(VolumeClientTest, ListFiltersByLabelsAndToleratesEmptyAnswers) {
  for (const auto& e : kEngines) {
    SCOPED_TRACE(e);
    FakeTransport t;
    VolumeClient volumes(t, kTimeout);
    t.Replay(e, "volume_list");
    t.Replay(e, "volume_list_empty");
    auto some = volumes.List({{"io.coderunner.instance", "rec"},
                              {"io.coderunner.managed", "true"},
                              {"io.coderunner.tenant", "acme"}});
    ASSERT_TRUE(some.ok()) << some.status().ToString();
    // Podman 4.3 ORs several label filters on /volumes (the recording holds
    // an unrelated volume that carries just one of the labels); Docker ANDs
    // them. The client returns what the engine sent; VolumeService checks
    // every label itself.
    ASSERT_GE(some->size(), 1u);
    EXPECT_EQ((*some)[0].name, "coderunner-rec-vol");
    auto none = volumes.List({{"io.coderunner.instance", "nobody"}});
    ASSERT_TRUE(none.ok()) << none.status().ToString();
    EXPECT_TRUE(none->empty());
  }
  FakeTransport t;  // Docker sends "Volumes": null when there are none.
  t.AnswerJson("GET", "/volumes?filters=%7B%22label%22%3A%5B%5D%7D", 200,
               {{"Volumes", nullptr}, {"Warnings", nullptr}});
  auto none = VolumeClient(t, kTimeout).List({});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());
}

TEST(VolumeClientTest, RemoveMapsInUseToVolumeInUseAndMissingToOk) {
  struct Case {
    const char* recording;
    StatusCode code;
    const char* reason;
  };
  for (const auto& e : kEngines) {
    for (const Case& c :
         {Case{"volume_remove", StatusCode::kOk, "ok"},
          Case{"volume_remove_missing", StatusCode::kOk, "ok"},
          Case{"volume_remove_in_use", StatusCode::kFailedPrecondition, "volume_in_use"}}) {
      SCOPED_TRACE(e + "/" + c.recording);
      FakeTransport t;
      VolumeClient volumes(t, kTimeout);
      t.Replay(e, c.recording);
      Status s = volumes.Remove("coderunner-rec-vol");
      EXPECT_EQ(s.code(), c.code) << s.ToString();
      if (!s.ok()) {
        EXPECT_EQ(s.reason(), c.reason);
      }
    }
  }
}

TEST(VolumeClientTest, RefusesNamesThatCouldEscapeThePath) {
  FakeTransport t;
  VolumeClient volumes(t, kTimeout);
  for (const char* bad : {"", "../x", "a/b", "a?b", "a b", "a%2f"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(volumes.Inspect(bad).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(volumes.Remove(bad).code(), StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(t.requests().empty());
}

TEST(VolumeClientTest, UnreachableEngineIsUnavailable) {
  FakeTransport t;
  t.FailEverything(UnavailableError("no socket", "engine_unavailable"));
  VolumeClient volumes(t, kTimeout);
  EXPECT_EQ(volumes.Inspect("coderunner-x").status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(volumes.List({}).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(volumes.Remove("coderunner-x").code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace coderunner::engine
