// LiveSandbox over the fake engine transport: what launch and removal
// create, start and remove on the engine and leave on disk, and how a call
// (Execute) goes through the channel FIFO and comes back on the attach
// stream, with the test playing the REPL driver.
#include "coderunner/sandboxes/live_sandbox.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/isolation/init_trailer.h"
#include "coderunner/isolation/output_watch.h"
#include "unit/isolation/scripted_engine.h"

namespace coderunner::sandboxes {
namespace {

using nlohmann::json;
using testutil::MuxFrame;

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
    spec_.language = {
        "python", "coderunner/python:3.11", "main.py", {"python3", "{file}"}, true, "", {}};
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

// One call as the REPL driver received it from the channel FIFO.
struct ReceivedCall {
  std::string nonce;
  std::string timeout_ms;
  std::string code;
};

// Reads one call frame ("CRX1", uint32 LE length, nonce NUL timeout NUL
// code) from the FIFO at `path`; nullopt if none came within the hang guard.
std::optional<ReceivedCall> ReadCall(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string frame;
  const auto guard = std::chrono::steady_clock::now() + testutil::kHangGuard;
  auto complete = [&frame] {
    if (frame.size() < 8) return false;
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i)
      n |= static_cast<uint32_t>(static_cast<uint8_t>(frame[4 + i])) << (8 * i);
    return frame.size() >= 8 + static_cast<size_t>(n);
  };
  while (!complete() && std::chrono::steady_clock::now() < guard) {
    pollfd p{fd, POLLIN, 0};
    (void)poll(&p, 1, 50);
    char buf[4096];
    ssize_t got = read(fd, buf, sizeof(buf));
    if (got > 0) frame.append(buf, static_cast<size_t>(got));
  }
  close(fd);
  if (!complete() || frame.compare(0, 4, "CRX1") != 0) return std::nullopt;
  std::string payload = frame.substr(8);
  size_t a = payload.find('\0');
  size_t b = a == std::string::npos ? a : payload.find('\0', a + 1);
  if (b == std::string::npos) return std::nullopt;
  return ReceivedCall{payload.substr(0, a), payload.substr(a + 1, b - a - 1),
                      payload.substr(b + 1)};
}

// The driver's end of a call on stderr: init's trailer shape, ending with
// the call's nonce (the bytes MarkerCut looks for).
std::string StderrEnd(const std::string& nonce, int exit_code, bool timed_out) {
  return "\x1e"
         "coderunner-init {\"exit_code\":" +
         std::to_string(exit_code) +
         ",\"wall_us\":7000,\"cpu_us\":3000,\"timed_out\":" + (timed_out ? "1" : "0") +
         ",\"eof\":\"" + nonce + "\"}\n";
}

TEST_F(LiveSandboxTest, ExecuteSendsTheCallAndCollectsTheDriversReply) {
  struct Case {
    const char* name;
    std::string out;
    std::string err;
    int exit_code;
    bool timed_out;
    isolation::RunStatus status;
  };
  const std::vector<Case> cases = {
      {"succeeds", "hi\n", "", 0, false, isolation::RunStatus::kSucceeded},
      {"fails", "partial\n", "Traceback\nNameError: x\n", 1, false, isolation::RunStatus::kFailed},
      {"cut short by the driver's timer", "", "KeyboardInterrupt\n", 1, true,
       isolation::RunStatus::kTimeout},
      {"silent", "", "", 0, false, isolation::RunStatus::kSucceeded},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testutil::ScriptedEngine engine;
    ScriptEngine(engine, /*running=*/true);
    auto live = Launch(engine);
    ASSERT_TRUE(live.ok()) << live.status().ToString();

    std::optional<ReceivedCall> received;
    std::thread driver([&] {
      received = ReadCall(layout_.workspace_root + "/sbx-1/" + kChannelFifo);
      if (!received) return;
      engine.PushAttach(MuxFrame(1, c.out + isolation::StdoutEndMarker(received->nonce)) +
                        MuxFrame(2, c.err + StderrEnd(received->nonce, c.exit_code, c.timed_out)));
    });
    CallResult r = (*live)->Execute({{"data.txt", "input"}}, "print('hi')", 5000);
    driver.join();

    ASSERT_TRUE(received.has_value()) << "the driver got no call";
    EXPECT_EQ(received->code, "print('hi')");
    EXPECT_EQ(received->timeout_ms, "5000");
    EXPECT_EQ(r.status, c.status) << r.error.ToString();
    EXPECT_EQ(r.exit_code, c.exit_code);
    EXPECT_EQ(r.stdout_data, c.out);
    EXPECT_EQ(r.stderr_data, c.err);
    EXPECT_EQ(r.run_ms, 7);
    EXPECT_EQ(r.cpu_ms, 3);
    EXPECT_FALSE(r.state_lost);
    EXPECT_TRUE(r.error.ok()) << r.error.ToString();
    // The file is in the workspace; the container is the same one.
    EXPECT_TRUE(std::filesystem::exists(layout_.workspace_root + "/sbx-1/data.txt"));
    EXPECT_EQ(engine.Count("POST", kStart), 1);
    EXPECT_EQ(engine.Count("DELETE", kRemove), 0);
    EXPECT_TRUE((*live)->Destroy().ok());
  }
}

TEST_F(LiveSandboxTest, OutputOverTheCapIsCutAndFlagged) {
  spec_.limits.output_bytes = 4;
  testutil::ScriptedEngine engine;
  ScriptEngine(engine, /*running=*/true);
  auto live = Launch(engine);
  ASSERT_TRUE(live.ok()) << live.status().ToString();
  std::thread driver([&] {
    auto call = ReadCall(layout_.workspace_root + "/sbx-1/" + kChannelFifo);
    if (!call) return;
    engine.PushAttach(MuxFrame(1, "0123456789\n" + isolation::StdoutEndMarker(call->nonce)) +
                      MuxFrame(2, StderrEnd(call->nonce, 0, false)));
  });
  CallResult r = (*live)->Execute({}, "print('0123456789')", 5000);
  driver.join();
  EXPECT_EQ(r.status, isolation::RunStatus::kSucceeded);
  EXPECT_EQ(r.stdout_data, "0123");
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_FALSE(r.stderr_truncated);
  EXPECT_TRUE((*live)->Destroy().ok());
}

// The watch found /output over a bound and stopped the container. What the
// killed writer left may fit by the time /output is counted again (a file
// cut mid-write, blocks the filesystem had reserved and gave back): it is
// emptied all the same, whether the manager settles the sandbox between
// calls or the next call meets the dead container first.
TEST_F(LiveSandboxTest, WhatTheWatchFoundOverIsEmptiedEvenIfItFitsWhenSettled) {
  constexpr int64_t kFileCap = 8192;
  for (const bool by_next_call : {false, true}) {
    SCOPED_TRACE(by_next_call ? "the next call" : "the manager");
    isolation::OutputWatchOptions quick;
    quick.orphan_interval = std::chrono::milliseconds(10);
    isolation::OutputWatch watch(quick);
    layout_.output_watch = &watch;
    layout_.output_caps.max_file_bytes = kFileCap;
    testutil::ScriptedEngine engine;
    ScriptEngine(engine, /*running=*/true);
    engine.Answer("POST", "/containers/s1/kill?signal=KILL", 204, "");
    auto live = Launch(engine);
    ASSERT_TRUE(live.ok()) << live.status().ToString();
    const std::string file = layout_.output_root + "/sbx-1/big";
    std::ofstream(file, std::ios::binary) << std::string(4 * kFileCap, 'b');
    ASSERT_TRUE(engine.WaitForRequest("POST", "/containers/s1/kill")) << "the watch never acted";
    std::filesystem::resize_file(file, kFileCap / 2);

    if (by_next_call) {
      CallResult r = (*live)->Execute({}, "print(1)", 200);
      EXPECT_TRUE(r.state_lost);
      EXPECT_TRUE(r.output_reset);
    } else {
      EXPECT_EQ((*live)->SettleBreach(), isolation::kBoundFileTooLarge);
    }
    EXPECT_FALSE(std::filesystem::exists(file));
    EXPECT_TRUE(std::filesystem::is_empty(layout_.output_root + "/sbx-1"));
    EXPECT_TRUE((*live)->Destroy().ok());
    layout_.output_watch = nullptr;
  }
}

// Podman 4.3 refuses a forced removal racing with the container's exit, as
// after the watch killed it (seen in CI: the sandbox's container outlived
// its DELETE). The removal is tried again; nothing is left on the engine.
TEST_F(LiveSandboxTest, AContainerTheEngineWouldNotRemoveAtOnceIsRemovedAfterAll) {
  constexpr const char* kImproper =
      R"({"cause":"container state improper","message":"container s1 could not be stopped",)"
      R"("response":500})";
  struct Row {
    const char* name;
    int refusals;  // Answers 500 before the engine removes it.
  };
  for (const Row& row : {Row{"refused once", 1}, Row{"refused past every retry", 4}}) {
    SCOPED_TRACE(row.name);
    isolation::OutputWatchOptions quick;
    quick.orphan_interval = std::chrono::milliseconds(10);
    isolation::OutputWatch watch(quick);
    layout_.output_watch = &watch;
    layout_.output_caps.max_file_bytes = 8192;
    testutil::ScriptedEngine engine;
    ScriptEngine(engine, /*running=*/true);
    engine.Answer("POST", "/containers/s1/kill?signal=KILL", 204, "");
    for (int i = 0; i < row.refusals; ++i) engine.AnswerOnce("DELETE", kRemove, 500, kImproper);
    auto live = Launch(engine);
    ASSERT_TRUE(live.ok()) << live.status().ToString();
    std::ofstream(layout_.output_root + "/sbx-1/big", std::ios::binary) << std::string(16384, 'b');
    ASSERT_TRUE(engine.WaitForRequest("POST", "/containers/s1/kill")) << "the watch never acted";
    EXPECT_EQ((*live)->SettleBreach(), isolation::kBoundFileTooLarge);
    EXPECT_TRUE((*live)->Destroy().ok());
    int removals = 0;
    for (const auto& r : engine.requests()) removals += r.method == "DELETE" && r.path == kRemove;
    // Each refusal, then the removal that went through; none after it.
    EXPECT_EQ(removals, row.refusals + 1);
    EXPECT_TRUE(DirsGone());
    layout_.output_watch = nullptr;
  }
}

}  // namespace
}  // namespace coderunner::sandboxes
