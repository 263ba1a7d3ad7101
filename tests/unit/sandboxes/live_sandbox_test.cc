// LiveSandbox's launch and removal over the fake engine transport: what is
// created, started and removed on the engine, and what stays on disk.
#include "coderunner/sandboxes/live_sandbox.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "unit/isolation/scripted_engine.h"

namespace coderunner::sandboxes {
namespace {

using nlohmann::json;

constexpr const char* kStart = "/containers/s1/start";
constexpr const char* kAttach = "/containers/s1/attach?stream=1&stdout=1&stderr=1";
constexpr const char* kRemove = "/containers/s1?force=1&v=1";

isolation::PolicySettings Settings() {
  isolation::PolicySettings s;
  s.init_host_path = "/opt/coderunner-init";
  return s;
}

class LiveSandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-live-XXXXXX";
    root_ = mkdtemp(tmpl);
    layout_.workspace_root = root_ + "/ws";
    layout_.output_root = root_ + "/out";
    layout_.uids = &uids_;
    spec_.id = "sbx-1";
    spec_.language = {"python", "coderunner/python:3.11", "main.py", {"python3", "{file}"}, true,
                      ""};
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // An engine that creates "s1", applies the policy and keeps it running
  // (its attach stream open) until it is removed.
  void ScriptEngine(testutil::ScriptedEngine& engine, bool running, long inspect_status = 200) {
    engine.AnswerCreatesAs("s1", running, inspect_status);
    engine.Answer("POST", kAttach, 200, "");
    engine.Answer("POST", kStart, 204, "");
    engine.Answer("DELETE", kRemove, 204, "");
    engine.HoldAttach();
  }

  StatusOr<std::unique_ptr<LiveSandbox>> Launch(testutil::ScriptedEngine& engine) {
    auto driver = DriverFor(spec_.language);
    EXPECT_TRUE(driver.ok());
    isolation::JobSpec spec = spec_;
    spec.language.command = driver->command;
    containers_ = std::make_unique<engine::ContainerClient>(engine, std::chrono::seconds(5));
    return LiveSandbox::Launch(*containers_, policy_, layout_, spec, *driver);
  }

  bool DirsGone() const {
    return !std::filesystem::exists(layout_.workspace_root + "/sbx-1") &&
           !std::filesystem::exists(layout_.output_root + "/sbx-1");
  }

  std::string root_;
  isolation::UidPool uids_{isolation::kDefaultFirstJobUid, 4};
  SandboxLayout layout_;
  isolation::ContainerPolicy policy_{Settings(), "inst-1"};
  isolation::JobSpec spec_;
  std::unique_ptr<engine::ContainerClient> containers_;
};

TEST_F(LiveSandboxTest, LaunchStartsAVerifiedContainerAndDestroyRemovesEverything) {
  testutil::ScriptedEngine engine;
  ScriptEngine(engine, /*running=*/true);
  auto live = Launch(engine);
  ASSERT_TRUE(live.ok()) << live.status().ToString();
  EXPECT_EQ((*live)->container_id(), "s1");
  EXPECT_TRUE((*live)->alive());
  json create = engine.LastCreateBody();
  EXPECT_EQ(create["Labels"][isolation::kLabelSandbox], "sbx-1");
  EXPECT_EQ(create["HostConfig"]["NetworkMode"], "none");
  EXPECT_EQ(engine.Count("POST", kStart), 1);
  EXPECT_EQ(uids_.in_use(), 1);
  EXPECT_TRUE(std::filesystem::exists(layout_.workspace_root + "/sbx-1/" + kChannelFifo));

  EXPECT_TRUE((*live)->Destroy().ok());
  EXPECT_EQ(engine.Count("DELETE", kRemove), 1);
  EXPECT_FALSE((*live)->alive());
  EXPECT_TRUE(DirsGone());
  EXPECT_EQ(uids_.in_use(), 0);
  EXPECT_TRUE((*live)->Destroy().ok()) << "Destroy is idempotent";
}

TEST_F(LiveSandboxTest, FailedLaunchRemovesWhatItCreated) {
  struct Case {
    const char* name;
    std::function<void(testutil::ScriptedEngine&)> breakit;
    bool running;
    long inspect_status;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"exits at start", [](auto&) {}, false, 200, "sandbox_start_failed"},
      {"attach refused",
       [](auto& e) {
         e.AnswerJson("POST", kAttach, 500, {{"message", "boom"}});
       },
       true, 200, "engine_internal"},
      {"start refused",
       [](auto& e) {
         e.AnswerJson("POST", kStart, 500, {{"message", "boom"}});
       },
       true, 200, "engine_internal"},
      {"inspect refused", [](auto&) {}, true, 500, "engine_internal"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testutil::ScriptedEngine engine;
    ScriptEngine(engine, c.running, c.inspect_status);
    c.breakit(engine);
    auto live = Launch(engine);
    ASSERT_FALSE(live.ok());
    EXPECT_EQ(live.status().reason(), c.reason) << live.status().ToString();
    EXPECT_EQ(engine.Count("DELETE", kRemove), 1) << "the created container is removed";
    EXPECT_TRUE(DirsGone());
    EXPECT_EQ(uids_.in_use(), 0);
  }
}

TEST_F(LiveSandboxTest, EngineThatCannotCreateLeavesNothingBehind) {
  testutil::ScriptedEngine engine;
  engine.FailEverything(UnavailableError("connection refused", "engine_unavailable"));
  auto live = Launch(engine);
  ASSERT_FALSE(live.ok());
  EXPECT_EQ(live.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(DirsGone());
  EXPECT_EQ(uids_.in_use(), 0);
}

}  // namespace
}  // namespace coderunner::sandboxes
