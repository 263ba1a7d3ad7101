// SandboxProcesses over a scripted engine: a process's events reach a
// follower in order from its start, a late follower only its end, and the
// per-sandbox cap holds.
#include "coderunner/sandboxes/sandbox_processes.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::sandboxes {
namespace {

using testutil::FakeTransport;

ProcessConfig Command(std::string cmd) {
  ProcessConfig config;
  config.cmd = std::move(cmd);
  return config;
}

// One frame of the engine's multiplexed stream.
std::string Frame(uint8_t stream, const std::string& bytes) {
  std::string out = {static_cast<char>(stream), 0, 0, 0};
  const uint32_t n = static_cast<uint32_t>(bytes.size());
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((n >> shift) & 0xff));
  return out + bytes;
}

class SandboxProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    transport_.Answer("POST", "/containers/c1/exec", 201, R"({"Id":"e1"})");
    // The wrapper's pid line first (stderr), split from the program's own.
    transport_.Answer("POST", "/exec/e1/start", 200,
                      Frame(2, "42\nwarn\n") + Frame(1, "hello\n") + Frame(1, "world\n"));
    transport_.Answer("GET", "/exec/e1/json", 200, R"({"Running":false,"ExitCode":3})");
  }

  std::vector<ProcessEvent> FollowAll(SandboxProcesses& processes, int64_t pid, bool from_start) {
    std::vector<ProcessEvent> seen;
    Status s = processes.Follow("sbx-1", pid, from_start, [&](const ProcessEvent& e) {
      if (e.kind != ProcessEvent::Kind::kKeepalive) seen.push_back(e);
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return seen;
  }

  FakeTransport transport_;
  engine::ExecClient execs_{transport_, std::chrono::seconds(5)};
  const ExecTarget target_{"c1", "2000:2000", "/nonexistent", {{"FROM_SANDBOX", "1"}}};
};

TEST_F(SandboxProcessesTest, AFollowerFromTheStartSeesEveryEventInOrder) {
  SandboxProcesses processes(execs_, ProcessLimits{});
  ProcessConfig config{"/bin/bash", {"-l", "-c", "echo hello"}, {{"MINE", "2"}}, "", {}, false};
  auto pid = processes.Start("sbx-1", target_, config);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  EXPECT_EQ(*pid, 42);
  std::vector<ProcessEvent> seen = FollowAll(processes, *pid, /*from_start=*/true);
  std::string out, err;
  for (const auto& e : seen) {
    if (e.kind == ProcessEvent::Kind::kStdout) out += e.data;
    if (e.kind == ProcessEvent::Kind::kStderr) err += e.data;
  }
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen.front().kind, ProcessEvent::Kind::kStart);
  EXPECT_EQ(seen.back().kind, ProcessEvent::Kind::kEnd);
  EXPECT_EQ(seen.back().exit_code, 3);
  EXPECT_EQ(out, "hello\nworld\n");
  EXPECT_EQ(err, "warn\n");  // The pid line is the wrapper's, not the program's.
  // As the sandbox's uid, with both environments, stdin from nowhere,
  // under the jobs' filter (coderunner-init -x).
  const nlohmann::json create = nlohmann::json::parse(transport_.requests()[0].body);
  EXPECT_EQ(create["User"], "2000:2000");
  EXPECT_EQ(create["WorkingDir"], "/home/user");
  EXPECT_EQ(create["Env"], (nlohmann::json{"FROM_SANDBOX=1", "MINE=2"}));
  ASSERT_GE(create["Cmd"].size(), 6u) << create.dump();
  EXPECT_EQ(create["Cmd"][0], "/.coderunner-init");
  EXPECT_EQ(create["Cmd"][1], "-x");
  EXPECT_EQ(create["Cmd"][2], "--");
  EXPECT_EQ(create["Cmd"][3], "/bin/sh");
  EXPECT_NE(create["Cmd"][5].get<std::string>().find("< /dev/null"), std::string::npos);
  // Ended: a late follower gets its end only; it is not listed.
  std::vector<ProcessEvent> late = FollowAll(processes, *pid, /*from_start=*/false);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].kind, ProcessEvent::Kind::kEnd);
  EXPECT_TRUE(processes.List("sbx-1").empty());
}

// Podman may deliver the program's stdout before the wrapper's pid line
// on stderr: the start event still comes first, then that output.
TEST_F(SandboxProcessesTest, StdoutBeforeThePidLineFollowsTheStartEvent) {
  transport_.Answer("POST", "/exec/e1/start", 200,
                    Frame(1, "early\n") + Frame(2, "42\n") + Frame(1, "late\n"));
  SandboxProcesses processes(execs_, ProcessLimits{});
  auto pid = processes.Start("sbx-1", target_, Command("cat"));
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  std::vector<ProcessEvent> seen = FollowAll(processes, *pid, /*from_start=*/true);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].kind, ProcessEvent::Kind::kStart);
  EXPECT_EQ(seen[0].pid, 42);
  EXPECT_EQ(seen[1].data, "early\n");
  EXPECT_EQ(seen[2].data, "late\n");
  EXPECT_EQ(seen[3].kind, ProcessEvent::Kind::kEnd);
}

TEST_F(SandboxProcessesTest, UnknownProcessesAndClosedStdinAreRefusedByName) {
  SandboxProcesses processes(execs_, ProcessLimits{});
  EXPECT_EQ(processes.Follow("sbx-1", 7, true, [](const ProcessEvent&) { return true; }).reason(),
            kReasonProcessNotFound);
  EXPECT_EQ(processes.SendInput("sbx-1", 7, "x").reason(), kReasonProcessNotFound);
  auto pid = processes.Start("sbx-1", target_, Command("cat"));
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  EXPECT_EQ(processes.SendInput("sbx-1", *pid, "x").reason(), kReasonProcessStdinClosed);
  EXPECT_EQ(processes.SendInput("sbx-2", *pid, "x").reason(), kReasonProcessNotFound);
  EXPECT_EQ(processes.PidOfTag("sbx-1", "none").status().reason(), kReasonProcessNotFound);
}

TEST_F(SandboxProcessesTest, TheEngineRefusingTheExecIsTheStartsError) {
  FakeTransport gone;
  gone.Answer("POST", "/containers/c1/exec", 404, R"({"message":"No such container: c1"})");
  engine::ExecClient execs(gone, std::chrono::seconds(5));
  SandboxProcesses processes(execs, ProcessLimits{});
  EXPECT_EQ(processes.Start("sbx-1", target_, Command("true")).status().code(),
            StatusCode::kNotFound);
  ProcessLimits none;
  none.max_per_sandbox = 0;
  SandboxProcesses capped(execs_, none);
  EXPECT_EQ(capped.Start("sbx-1", target_, Command("true")).status().reason(), kReasonProcessLimit);
}

}  // namespace
}  // namespace coderunner::sandboxes
