// coderunner-init refuses to run a job in a container the engine did not
// confine as the policy says, whatever the engine reports: here the
// service's own create body, changed the way a misconfigured engine (or an
// operator's daemon-wide setting) would change it. init must end with 126
// (start_error "policy") before the job exists; the unchanged body runs.
#include <unistd.h>

#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "coderunner/engine/containers.h"
#include "coderunner/engine/curl_transport.h"
#include "coderunner/isolation/container_policy.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

class PolicyChecksTest : public EngineTest {
 protected:
  // Creates, starts and waits for a container from the policy's body for a
  // job running `true`, after `change` edits the body. Its exit code, as the
  // engine recorded it once the container exited; `output_` gets what it
  // printed (init's refusal names the path).
  //
  // Podman 4.3's compat /wait can answer StatusCode 0 before the container
  // has exited (a refused container then read as one that ran): the code is
  // read from inspect once the state is "exited", after the attach stream,
  // which ends only with the container's output, has closed.
  int ExitCodeWith(const std::function<void(json&)>& change) {
    std::string ws = server_->workspace_dir() + "/policy-check";
    std::filesystem::create_directories(ws);
    isolation::JobSpec job;
    job.id = "job-policycheck";
    job.language.name = "bash";
    job.language.image = "coderunner/bash:5";
    job.language.file = "main.sh";
    job.language.command = {"true"};
    isolation::PolicySettings settings;
    settings.init_host_path = CODERUNNER_INIT_BINARY;
    settings.runtime = RuntimeUnderTest();
    // An instance label of its own: the server's background recovery and
    // janitor remove any container of their instance whose job they do not
    // run, and one listed between this create and its start was removed
    // ("marked for removal", seen in CI).
    isolation::ContainerPolicy policy(settings, server_->instance() + "-policy-check");
    isolation::ContainerContext ctx{job, ws, false, {}};
    // The last of this server's uids: leased in order from the first, they
    // never reach it here.
    ctx.uid = server_->uid_first() + server_->uid_count() - 1;
    json body = policy.BuildCreateBody(ctx);
    change(body);
    engine::CurlTransport transport(server_->socket());
    engine::ContainerClient containers(transport, std::chrono::seconds(30));
    auto id = containers.Create(body, "coderunner-policycheck-" + std::to_string(getpid()));
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    if (!id.ok()) return -1;
    int code = RunToExit(containers, *id);
    (void)containers.Remove(*id);
    std::filesystem::remove_all(ws);
    return code;
  }

  std::string output_;

 private:
  int RunToExit(engine::ContainerClient& containers, const std::string& id) {
    output_.clear();
    // The attach stream runs on a thread of its own (the transport keeps
    // one transfer per thread); the container starts once it is up.
    std::promise<void> attached_up;
    Status attached = OkStatus();
    std::thread attacher([&] {
      attached = containers.Attach(
          id,
          [&](std::string_view chunk) {
            output_.append(chunk);
            return true;
          },
          [&] { attached_up.set_value(); }, std::chrono::seconds(60));
    });
    Status started = InternalError("the attach stream never came up");
    if (attached_up.get_future().wait_for(std::chrono::seconds(60)) == std::future_status::ready) {
      started = containers.Start(id);
    }
    if (!started.ok()) (void)containers.Kill(id);
    attacher.join();
    EXPECT_TRUE(started.ok()) << started.ToString();
    EXPECT_TRUE(attached.ok()) << attached.ToString();
    if (!started.ok()) return -1;
    auto waited = containers.Wait(id, std::chrono::seconds(60));
    EXPECT_TRUE(waited.ok()) << waited.status().ToString();
    int code = -1;
    EXPECT_TRUE(Eventually([&] {
      auto state = containers.Inspect(id);
      if (!state.ok() || state->status != "exited") return false;
      code = state->exit_code;
      return true;
    })) << "the container never reached \"exited\"";
    return code;
  }
};

TEST_F(PolicyChecksTest, TheUnchangedPolicyRuns) {
  EXPECT_EQ(ExitCodeWith([](json&) {}), 0);
}

TEST_F(PolicyChecksTest, AContainerWithoutTheEnginesSeccompProfileIsRefused) {
  if (RuntimeUnderTest() == "runsc") GTEST_SKIP() << "gVisor applies no engine profile";
  EXPECT_EQ(
      ExitCodeWith([](json& b) { b["HostConfig"]["SecurityOpt"].push_back("seccomp=unconfined"); }),
      126)
      << output_;
  EXPECT_NE(output_.find("applied no seccomp profile"), std::string::npos) << output_;
}

TEST_F(PolicyChecksTest, APathThePolicyNeedsMaskedButIsNotIsRefused) {
  // /proc/cpuinfo is never masked: standing in for a default mask an engine
  // dropped.
  EXPECT_EQ(ExitCodeWith([](json& b) {
              for (auto& e : b["Env"]) {
                std::string v = e.get<std::string>();
                if (v.rfind("CODERUNNER_MASKED_PATHS=", 0) == 0) e = v + ":/proc/cpuinfo";
              }
            }),
            126)
      << output_;
  EXPECT_NE(output_.find("/proc/cpuinfo is not masked"), std::string::npos) << output_;
}

TEST_F(PolicyChecksTest, APathThePolicyNeedsReadOnlyButIsNotIsRefused) {
  // /tmp is a writable tmpfs: standing in for a read-only mount an engine
  // dropped.
  EXPECT_EQ(ExitCodeWith([](json& b) {
              for (auto& e : b["Env"]) {
                std::string v = e.get<std::string>();
                if (v.rfind("CODERUNNER_READONLY_PATHS=", 0) == 0) e = v + ":/tmp";
              }
            }),
            126)
      << output_;
  EXPECT_NE(output_.find("/tmp is not masked or read-only"), std::string::npos) << output_;
}

}  // namespace
}  // namespace coderunner::testing
