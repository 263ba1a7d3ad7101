#include "coderunner/engine/system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::engine {
namespace {

using testutil::FakeTransport;

constexpr std::chrono::milliseconds kTimeout{250};

TEST(SystemClientTest, PingRecordedEnginesIsOk) {
  for (const char* engine : {"docker", "podman"}) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    SystemClient sys(t, kTimeout);
    t.Replay(engine, "ping");
    EXPECT_TRUE(sys.Ping().ok());
    EXPECT_EQ(t.last_request().path, "/_ping");
    EXPECT_EQ(t.last_request().timeout, kTimeout);
  }
}

TEST(SystemClientTest, PingFailuresAreUnavailable) {
  struct Case {
    const char* name;
    long status;  // 0: transport error.
  };
  for (const Case& c : {Case{"500", 500}, Case{"404", 404}, Case{"transport", 0}}) {
    SCOPED_TRACE(c.name);
    FakeTransport t;
    SystemClient sys(t, kTimeout);
    if (c.status == 0) {
      t.Fail("GET", "/_ping", UnavailableError("connect: refused"));
    } else {
      t.Answer("GET", "/_ping", c.status, "down");
    }
    Status s = sys.Ping();
    EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  }
}

TEST(SystemClientTest, VersionDetectsEngineKindFromRecordings) {
  struct Case {
    const char* engine;
    EngineKind kind;
    const char* version;
  };
  const std::vector<Case> cases = {{"docker", EngineKind::kDocker, "20.10.24+dfsg1"},
                                   {"podman", EngineKind::kPodman, "4.3.1"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.engine);
    FakeTransport t;
    SystemClient sys(t, kTimeout);
    t.Replay(c.engine, "version");
    auto v = sys.Version();
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->kind, c.kind);
    EXPECT_EQ(v->version, c.version);
    EXPECT_EQ(v->api_version, "1.41");
  }
}

TEST(SystemClientTest, VersionToleratesOddBodies) {
  struct Case {
    const char* body;
    bool ok;
    EngineKind kind;
  };
  const std::vector<Case> cases = {
      {"{}", true, EngineKind::kDocker},
      {R"({"Version":1,"Components":"x"})", true, EngineKind::kDocker},
      {R"({"Components":[5,{"Name":3},{"Name":"Podman Engine"}]})", true, EngineKind::kPodman},
      {"[]", false, EngineKind::kDocker},
      {"garbage", false, EngineKind::kDocker},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    FakeTransport t;
    SystemClient sys(t, kTimeout);
    t.Answer("GET", "/version", 200, std::string(c.body));
    auto v = sys.Version();
    ASSERT_EQ(v.ok(), c.ok);
    if (c.ok) {
      EXPECT_EQ(v->kind, c.kind);
    } else {
      EXPECT_EQ(v.status().reason(), "engine_bad_response");
    }
  }
}

TEST(SystemClientTest, VersionTransportErrorIsUnavailable) {
  FakeTransport t;
  SystemClient sys(t, kTimeout);
  t.FailEverything(UnavailableError("gone"));
  EXPECT_EQ(sys.Version().status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace coderunner::engine
