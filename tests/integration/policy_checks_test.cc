// coderunner-init refuses to run a job in a container the engine did not
// confine as the policy says, whatever the engine reports: here the
// service's own create body, changed the way a misconfigured engine (or an
// operator's daemon-wide setting) would change it. init must end with 126
// (start_error "policy") before the job exists; the unchanged body runs.
#include <unistd.h>

#include <filesystem>
#include <string>

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
  // job running `true`, after `change` edits the body. Its exit code.
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
    isolation::ContainerPolicy policy(settings, server_->instance());
    isolation::ContainerContext ctx{job, ws, false, {}};
    ctx.uid = kFirstJobUid + kJobUidCount - 1;
    json body = policy.BuildCreateBody(ctx);
    change(body);
    engine::CurlTransport transport(server_->socket());
    engine::ContainerClient containers(transport, std::chrono::seconds(30));
    auto id = containers.Create(body, "coderunner-policycheck-" + std::to_string(getpid()));
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    if (!id.ok()) return -1;
    int code = -1;
    if (Status s = containers.Start(*id); s.ok()) {
      auto waited = containers.Wait(*id, std::chrono::seconds(60));
      EXPECT_TRUE(waited.ok()) << waited.status().ToString();
      if (waited.ok()) code = *waited;
    } else {
      ADD_FAILURE() << s.ToString();
    }
    (void)containers.Remove(*id);
    std::filesystem::remove_all(ws);
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
      126);
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
            126);
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
            126);
}

}  // namespace
}  // namespace coderunner::testing
