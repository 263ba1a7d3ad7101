// ContainerRunner's cold path over the fake engine transport: what is
// created, started and removed on the engine, and which RunResult comes back.
#include "coderunner/isolation/container_runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include "unit/isolation/scripted_engine.h"

namespace coderunner::isolation {
namespace {

using nlohmann::json;
using testutil::kHangGuard;
using testutil::MuxFrame;

constexpr const char* kCreate = "/containers/create?name=coderunner-job-1";
constexpr const char* kAttach = "/containers/c1/attach?stream=1&stdout=1&stderr=1";
constexpr const char* kStart = "/containers/c1/start";
constexpr const char* kInspect = "/containers/c1/json";
constexpr const char* kRemove = "/containers/c1?force=1&v=1";
constexpr const char* kStop = "/containers/c1/kill?signal=USR1";
constexpr const char* kKill = "/containers/c1/kill?signal=KILL";

json InspectBody(int exit_code, bool oom, const std::string& runtime = "runc") {
  return {
      {"Id", "c1"},
      {"Image", "sha256:feed"},
      {"HostConfig", {{"Runtime", runtime}}},
      {"State",
       {{"Status", "exited"}, {"Running", false}, {"ExitCode", exit_code}, {"OOMKilled", oom}}}};
}

PolicySettings Settings() {
  PolicySettings s;
  s.init_host_path = "/opt/coderunner-init";
  return s;
}

class ContainerRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-runner-XXXXXX";
    root_ = mkdtemp(tmpl);
    RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.stop_grace = std::chrono::milliseconds(20);
    options.kill_grace = std::chrono::seconds(5);
    options.uids = &uids_;
    runner_ = std::make_unique<ContainerRunner>(containers_, policy_, options);
    job_.id = "job-1";
    job_.language = {"python", "coderunner/python:3.11", "main.py", {"python3", "{file}"}, true, "",
                     {}};
    job_.code = "print(1)";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // A well-behaved engine: every step of a cold run succeeds; the stream
  // carries "out\n" on stdout and "err\n" on stderr.
  void ScriptEngine(int exit_code = 0, bool oom = false) {
    engine_.AnswerJson("POST", kCreate, 201, {{"Id", "c1"}});
    engine_.Answer("POST", kAttach, 200, MuxFrame(1, "out\n") + MuxFrame(2, "err\n"));
    engine_.Answer("POST", kStart, 204, "");
    engine_.AnswerJson("GET", kInspect, 200, InspectBody(exit_code, oom));
    engine_.Answer("DELETE", kRemove, 204, "");
    engine_.Answer("POST", kStop, 204, "");
    engine_.Answer("POST", kKill, 204, "");
  }

  RunResult MustRun(const RunHooks& hooks = {}) {
    auto r = runner_->Run(job_, hooks);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : RunResult{};
  }

  // Every workspace is gone and every uid is back.
  void ExpectCleanedUp() {
    EXPECT_TRUE(std::filesystem::is_empty(root_ + "/ws"));
    EXPECT_EQ(uids_.in_use(), 0);
  }

  std::string root_;
  testutil::ScriptedEngine engine_;
  engine::ContainerClient containers_{engine_, std::chrono::seconds(5)};
  ContainerPolicy policy_{Settings(), "inst-1"};
  UidPool uids_{kDefaultFirstJobUid, 8};
  std::unique_ptr<ContainerRunner> runner_;
  JobSpec job_;
};

TEST_F(ContainerRunnerTest, ColdRunCreatesStartsInspectsAndRemovesInOrder) {
  ScriptEngine();
  RunResult r = MustRun();
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  const std::vector<std::string> expected = {
      std::string("POST ") + kCreate, std::string("POST ") + kAttach, std::string("POST ") + kStart,
      std::string("GET ") + kInspect, std::string("DELETE ") + kRemove};
  EXPECT_EQ(engine_.Seen(), expected);
  ExpectCleanedUp();
}

TEST_F(ContainerRunnerTest, CreateBodyIsThePolicysForTheJob) {
  ScriptEngine();
  job_.limits.memory_bytes = 96LL << 20;
  MustRun();
  json create = engine_.LastCreateBody();
  ASSERT_TRUE(create.is_object());
  EXPECT_EQ(create["Image"], "coderunner/python:3.11");
  EXPECT_EQ(create["HostConfig"]["NetworkMode"], "none");
  EXPECT_EQ(create["HostConfig"]["Memory"], 96LL << 20);
  EXPECT_EQ(create["HostConfig"]["ReadonlyRootfs"], true);
  // The container runs as a leased uid, never root or the shared nobody.
  std::string user = create["User"].get<std::string>();
  EXPECT_EQ(user.rfind(std::to_string(kDefaultFirstJobUid), 0), 0u) << user;
  EXPECT_FALSE(testutil::EofNonceOf(create).empty());
}

TEST_F(ContainerRunnerTest, EngineStateDecidesTheOutcomeWithoutATrailer) {
  struct Case {
    const char* name;
    int exit_code;
    bool oom;
    RunStatus status;
    int signal;
    std::string runtime = "";
  };
  const std::vector<Case> cases = {
      {"exit 0", 0, false, RunStatus::kSucceeded, 0},
      {"exit 3", 3, false, RunStatus::kFailed, 0},
      {"oom killed", 137, true, RunStatus::kOom, SIGKILL},
      {"killed by a signal", 128 + SIGTERM, false, RunStatus::kFailed, SIGTERM},
      {"SIGKILLed unseen under runc", 137, false, RunStatus::kFailed, SIGKILL},
      // The host's OOM killer ended the gVisor sandbox, init with it, and the
      // engine's OOMKilled lost the race with the exit.
      {"gVisor sandbox SIGKILLed from outside", 137, false, RunStatus::kOom, SIGKILL, "runsc"},
      {"gVisor, oom flag set", 137, true, RunStatus::kOom, SIGKILL, "runsc"},
      {"gVisor, exit 3", 3, false, RunStatus::kFailed, 0, "runsc"},
      {"gVisor, SIGTERM", 128 + SIGTERM, false, RunStatus::kFailed, SIGTERM, "runsc"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testutil::ScriptedEngine engine;
    engine::ContainerClient containers(engine, std::chrono::seconds(5));
    RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.uids = &uids_;
    ContainerRunner runner(containers, policy_, options);
    engine.AnswerJson("POST", kCreate, 201, {{"Id", "c1"}});
    engine.Answer("POST", kAttach, 200, MuxFrame(1, "out\n") + MuxFrame(2, "err\n"));
    engine.Answer("POST", kStart, 204, "");
    engine.AnswerJson("GET", kInspect, 200,
                      InspectBody(c.exit_code, c.oom, c.runtime.empty() ? "runc" : c.runtime));
    engine.Answer("DELETE", kRemove, 204, "");
    job_.runtime = c.runtime;
    auto r = runner.Run(job_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, c.status);
    EXPECT_EQ(r->exit_code, c.exit_code);
    EXPECT_EQ(r->signal, c.signal);
    EXPECT_EQ(r->stdout_data, "out\n");
    EXPECT_EQ(r->stderr_data, "err\n");
    EXPECT_EQ(r->image, "coderunner/python:3.11");
    EXPECT_EQ(r->image_digest, "sha256:feed");
    EXPECT_FALSE(r->reported_by_init);
    EXPECT_TRUE(r->error.ok());
    EXPECT_EQ(engine.Count("DELETE", kRemove), 1);
    ExpectCleanedUp();
  }
}

TEST_F(ContainerRunnerTest, OutputIsDemultiplexedCappedAndStreamedToTheHook) {
  ScriptEngine();
  engine_.Answer("POST", kAttach, 200,
                 MuxFrame(1, "hello ") + MuxFrame(2, "oops") + MuxFrame(1, "world"));
  job_.limits.output_bytes = 8;
  std::string seen_out, seen_err;
  RunHooks hooks;
  hooks.on_output = [&](engine::StreamId stream, std::string_view bytes) {
    (stream == engine::StreamId::kStdout ? seen_out : seen_err).append(bytes);
  };
  RunResult r = MustRun(hooks);
  EXPECT_EQ(r.stdout_data, "hello wo");
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_EQ(r.stderr_data, "oops");
  EXPECT_FALSE(r.stderr_truncated);
  EXPECT_EQ(seen_out, "hello wo");
  EXPECT_EQ(seen_err, "oops");
}

TEST_F(ContainerRunnerTest, InitTrailerWithTheRunsNonceDecidesTheOutcome) {
  struct Case {
    const char* name;
    json fields;  // "eof" is set to the run's nonce unless given.
    RunStatus status;
    std::string reason;  // Of r.error; "" = OK.
    bool reported_by_init;
  };
  const std::vector<Case> cases = {
      {"exit 0", {{"exit_code", 0}, {"cpu_us", 4000}}, RunStatus::kSucceeded, "", true},
      {"exit 2", {{"exit_code", 2}}, RunStatus::kFailed, "", true},
      {"oom kill",
       {{"exit_code", 137}, {"signal", 9}, {"oom_kills", 1}},
       RunStatus::kOom,
       "",
       true},
      {"cpu limit", {{"exit_code", 152}, {"signal", SIGXCPU}}, RunStatus::kTimeout, "", true},
      {"policy refused",
       {{"exit_code", 0}, {"start_error", "policy"}},
       RunStatus::kError,
       "policy_not_applied",
       false},
      {"exec failed",
       {{"exit_code", 0}, {"start_error", "exec"}},
       RunStatus::kError,
       "job_start_failed",
       false},
      {"printed by the job",
       {{"exit_code", 9}, {"eof", "not-the-nonce"}},
       RunStatus::kSucceeded,
       "",
       false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ScriptEngine(/*exit_code=*/0);
    engine_.SetAttachBody([&c](const json& create) {
      json fields = c.fields;
      if (!fields.contains("eof")) fields["eof"] = testutil::EofNonceOf(create);
      return MuxFrame(1, "out\n") + MuxFrame(2, "why\n" + testutil::InitTrailerLine(fields));
    });
    RunResult r = MustRun();
    EXPECT_EQ(r.status, c.status);
    EXPECT_EQ(r.error.reason(), c.reason) << r.error.ToString();
    EXPECT_EQ(r.reported_by_init, c.reported_by_init);
    // init's own trailer never reaches the caller; a look-alike does.
    bool trailer_kept = r.stderr_data.find("coderunner-init") != std::string::npos;
    EXPECT_EQ(trailer_kept, c.fields.contains("eof"));
    ExpectCleanedUp();
  }
}

TEST_F(ContainerRunnerTest, TrailerMetricsReachTheResult) {
  ScriptEngine();
  engine_.SetAttachBody([](const json& create) {
    json fields = {{"exit_code", 0},
                   {"wall_us", 7000},
                   {"cpu_us", 3000},
                   {"memory_peak_bytes", 4096},
                   {"eof", testutil::EofNonceOf(create)}};
    return MuxFrame(2, testutil::InitTrailerLine(fields));
  });
  RunResult r = MustRun();
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  EXPECT_EQ(r.metrics.run_ms, 7);
  EXPECT_EQ(r.metrics.cpu_ms, 3);
  EXPECT_EQ(r.metrics.memory_peak_bytes, 4096);
  EXPECT_EQ(r.stderr_data, "");
}

TEST_F(ContainerRunnerTest, EngineErrorsBecomeErrorResultsAndTheContainerIsRemoved) {
  struct Case {
    const char* name;
    std::function<void(testutil::ScriptedEngine&)> breakit;
    StatusCode code;
    std::string reason;
    bool started;
    bool removed;
  };
  const std::vector<Case> cases = {
      {"image missing",
       [](auto& e) {
         e.AnswerJson("POST", kCreate, 404, {{"message", "No such image"}});
       },
       StatusCode::kFailedPrecondition, "image_missing", false, false},
      {"create refused",
       [](auto& e) {
         e.AnswerJson("POST", kCreate, 500, {{"message", "boom"}});
       },
       StatusCode::kInternal, "engine_internal", false, false},
      {"attach refused",
       [](auto& e) {
         e.AnswerJson("POST", kAttach, 500, {{"message", "boom"}});
       },
       StatusCode::kInternal, "engine_internal", false, true},
      {"start refused",
       [](auto& e) {
         e.AnswerJson("POST", kStart, 500, {{"message", "boom"}});
       },
       StatusCode::kInternal, "engine_internal", true, true},
      {"inspect finds nothing",
       [](auto& e) {
         e.AnswerJson("GET", kInspect, 404, {{"message", "no such container"}});
       },
       StatusCode::kNotFound, "engine_not_found", true, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testutil::ScriptedEngine engine;
    engine::ContainerClient containers(engine, std::chrono::seconds(5));
    RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.uids = &uids_;
    ContainerRunner runner(containers, policy_, options);
    engine.AnswerJson("POST", kCreate, 201, {{"Id", "c1"}});
    engine.Answer("POST", kAttach, 200, MuxFrame(1, "out\n"));
    engine.Answer("POST", kStart, 204, "");
    engine.AnswerJson("GET", kInspect, 200, InspectBody(0, false));
    engine.Answer("DELETE", kRemove, 204, "");
    c.breakit(engine);
    auto r = runner.Run(job_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, RunStatus::kError);
    EXPECT_EQ(r->error.code(), c.code) << r->error.ToString();
    EXPECT_EQ(r->error.reason(), c.reason) << r->error.ToString();
    EXPECT_EQ(r->image, "coderunner/python:3.11");
    EXPECT_EQ(engine.Count("POST", kStart), c.started ? 1 : 0);
    EXPECT_EQ(engine.Count("DELETE", kRemove), c.removed ? 1 : 0);
    ExpectCleanedUp();
  }
}

TEST_F(ContainerRunnerTest, UnreachableEngineAtCreateFailsTheCallNotTheJob) {
  ScriptEngine();
  engine_.Fail("POST", kCreate, UnavailableError("connection refused", "engine_unavailable"));
  auto r = runner_->Run(job_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(engine_.Count("POST", kStart), 0);
  ExpectCleanedUp();
}

TEST_F(ContainerRunnerTest, FailedRemovalKeepsTheUidLeased) {
  ScriptEngine();
  engine_.AnswerJson("DELETE", kRemove, 500, {{"message", "device busy"}});
  RunResult r = MustRun();
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  // Its processes may live on as that uid: it is not handed to another job.
  EXPECT_EQ(uids_.in_use(), 1);
  EXPECT_TRUE(std::filesystem::is_empty(root_ + "/ws"));
}

TEST_F(ContainerRunnerTest, RuntimeIsCheckedBeforeTheContainerStarts) {
  struct Case {
    const char* name;
    std::string engine_runtime;
    RunStatus status;
    std::string reason;
    bool started;
  };
  const std::vector<Case> cases = {
      {"applied", "runsc", RunStatus::kSucceeded, "", true},
      {"ignored by the engine", "runc", RunStatus::kError, "runtime_not_applied", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testutil::ScriptedEngine engine;
    engine::ContainerClient containers(engine, std::chrono::seconds(5));
    RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.uids = &uids_;
    ContainerRunner runner(containers, policy_, options);
    engine.AnswerJson("POST", kCreate, 201, {{"Id", "c1"}});
    engine.Answer("POST", kAttach, 200, MuxFrame(1, "out\n"));
    engine.Answer("POST", kStart, 204, "");
    engine.AnswerJson("GET", kInspect, 200, InspectBody(0, false, c.engine_runtime));
    engine.Answer("DELETE", kRemove, 204, "");
    job_.runtime = "runsc";
    auto r = runner.Run(job_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, c.status);
    EXPECT_EQ(r->error.reason(), c.reason);
    EXPECT_EQ(engine.LastCreateBody()["HostConfig"]["Runtime"], "runsc");
    EXPECT_EQ(engine.Count("POST", kStart), c.started ? 1 : 0);
    EXPECT_EQ(engine.Count("DELETE", kRemove), 1);
    ExpectCleanedUp();
  }
}

TEST_F(ContainerRunnerTest, JobPastItsDeadlineIsStoppedAndTimesOut) {
  struct Case {
    const char* name;
    long stop_answer;  // The engine's answer to SIGUSR1 for init.
    int kills;         // SIGKILLs that follow.
  };
  const std::vector<Case> cases = {
      {"init stops the job", 204, 0},
      {"init does not answer", 500, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testutil::ScriptedEngine engine;
    engine::ContainerClient containers(engine, std::chrono::seconds(5));
    RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.stop_grace = std::chrono::milliseconds(20);
    options.uids = &uids_;
    ContainerRunner runner(containers, policy_, options);
    engine.AnswerJson("POST", kCreate, 201, {{"Id", "c1"}});
    engine.Answer("POST", kAttach, 200, MuxFrame(1, "partial"));
    engine.Answer("POST", kStart, 204, "");
    engine.AnswerJson("GET", kInspect, 200, InspectBody(137, false));
    engine.Answer("DELETE", kRemove, 204, "");
    engine.Answer("POST", kStop, c.stop_answer, R"({"message":"no"})");
    engine.Answer("POST", kKill, 204, "");
    engine.HoldAttach();  // The job never ends by itself.
    job_.limits.timeout_ms = 50;
    auto r = runner.Run(job_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, RunStatus::kTimeout);
    EXPECT_EQ(r->signal, SIGKILL);
    EXPECT_EQ(r->exit_code, 128 + SIGKILL);
    EXPECT_EQ(r->stdout_data, "partial");
    EXPECT_EQ(engine.Count("POST", kStop), 1);
    EXPECT_EQ(engine.Count("POST", kKill), c.kills);
    EXPECT_EQ(engine.Count("DELETE", kRemove), 1);
    ExpectCleanedUp();
  }
}

// An engine that stalls holds the end of the stream past the job's
// deadline, though the program inside ended long before: init's trailer
// (which came with the output) says so, and the stall is not charged to the
// program. Init's own stop at the deadline, or an end past the time, is
// still a timeout.
TEST_F(ContainerRunnerTest, AnEngineStallPastTheDeadlineIsNotChargedToTheProgram) {
  struct Case {
    const char* name;
    json fields;  // Of init's trailer; "eof" is the run's nonce.
    RunStatus status;
    int signal;
  };
  const std::vector<Case> cases = {
      {"ended on its own in time", {{"exit_code", 0}, {"wall_us", 2000}}, RunStatus::kSucceeded, 0},
      {"failed on its own in time", {{"exit_code", 3}, {"wall_us", 2000}}, RunStatus::kFailed, 0},
      {"stopped by init at the deadline",
       {{"exit_code", 137}, {"signal", 9}, {"wall_us", 2000}, {"stopped", 1}},
       RunStatus::kTimeout,
       SIGKILL},
      {"ended on its own past its time",
       {{"exit_code", 0}, {"wall_us", 80000}},
       RunStatus::kTimeout,
       SIGKILL},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testutil::ScriptedEngine engine;
    engine::ContainerClient containers(engine, std::chrono::seconds(5));
    RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.stop_grace = std::chrono::milliseconds(20);
    options.uids = &uids_;
    ContainerRunner runner(containers, policy_, options);
    engine.AnswerJson("POST", kCreate, 201, {{"Id", "c1"}});
    engine.SetAttachBody([&c](const json& create) {
      json fields = c.fields;
      fields["eof"] = testutil::EofNonceOf(create);
      return MuxFrame(1, "out\n") + MuxFrame(2, testutil::InitTrailerLine(fields));
    });
    engine.Answer("POST", kStart, 204, "");
    engine.AnswerJson("GET", kInspect, 200, InspectBody(0, false));
    engine.Answer("DELETE", kRemove, 204, "");
    // The container had exited: the engine, back, refuses the stop.
    engine.Answer("POST", kStop, 409, R"({"message":"is not running"})");
    engine.Answer("POST", kKill, 204, "");
    engine.HoldAttach();  // The stream ends only when the engine is back.
    job_.limits.timeout_ms = 50;
    auto r = runner.Run(job_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, c.status);
    EXPECT_EQ(r->signal, c.signal);
    EXPECT_EQ(r->stdout_data, "out\n");
    EXPECT_EQ(r->metrics.run_ms, c.fields["wall_us"].get<int64_t>() / 1000);
    EXPECT_EQ(engine.Count("POST", kStop), 1);
    ExpectCleanedUp();
  }
}

// A start call whose answer the engine's loss swallowed: the container may
// have run all the same. Its end comes from the engine once it answers: an
// exit of its own is the job's result; a container never started is still
// an engine_unavailable error (nothing ran).
TEST_F(ContainerRunnerTest, AStartLostOnItsWayBackTakesTheEndFromTheContainer) {
  struct Case {
    const char* name;
    json state;  // The inspect's State once the engine answers.
    RunStatus status;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {"it ran and exited 3",
       {{"Status", "exited"}, {"Running", false}, {"ExitCode", 3}, {"OOMKilled", false}},
       RunStatus::kFailed,
       3},
      {"it never started",
       {{"Status", "created"}, {"Running", false}, {"ExitCode", 0}, {"OOMKilled", false}},
       RunStatus::kError,
       -1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testutil::ScriptedEngine engine;
    engine::ContainerClient containers(engine, std::chrono::seconds(5));
    RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.uids = &uids_;
    ContainerRunner runner(containers, policy_, options);
    engine.AnswerJson("POST", kCreate, 201, {{"Id", "c1"}});
    engine.Answer("POST", kAttach, 200, "");
    engine.Fail("POST", kStart, UnavailableError("reset", engine::kReasonEngineUnavailable));
    json inspect = InspectBody(0, false);
    inspect["State"] = c.state;
    engine.AnswerJson("GET", kInspect, 200, inspect);
    engine.Answer("DELETE", kRemove, 204, "");
    auto r = runner.Run(job_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, c.status) << r->error.ToString();
    EXPECT_EQ(r->exit_code, c.exit_code);
    if (c.status == RunStatus::kError) {
      EXPECT_EQ(r->error.reason(), engine::kReasonEngineUnavailable);
    } else {
      EXPECT_TRUE(r->output_lost);
    }
    EXPECT_EQ(engine.Count("DELETE", kRemove), 1);
  }
}

TEST_F(ContainerRunnerTest, CancelStopsARunningJobAndRemovesItsContainer) {
  ScriptEngine();
  engine_.Answer("POST", kAttach, 200, MuxFrame(1, "so far"));
  engine_.HoldAttach();
  job_.limits.timeout_ms = 600000;  // Only the cancel can end it.
  CancelToken cancel;
  RunHooks hooks;
  hooks.cancel = &cancel;
  auto run = std::async(std::launch::async, [&] { return runner_->Run(job_, hooks); });
  ASSERT_TRUE(engine_.WaitForRequest("POST", kStart));
  cancel.Cancel();
  ASSERT_EQ(run.wait_for(kHangGuard), std::future_status::ready);
  auto r = run.get();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, RunStatus::kCancelled);
  EXPECT_TRUE(r->error.ok());
  EXPECT_EQ(r->stdout_data, "so far");
  EXPECT_EQ(engine_.Count("DELETE", kRemove), 1);
  ExpectCleanedUp();
}

}  // namespace
}  // namespace coderunner::isolation
