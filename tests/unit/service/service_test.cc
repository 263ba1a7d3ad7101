#include "coderunner/service/service.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "service/startup_steps.h"

namespace coderunner::service {
namespace {

namespace fs = std::filesystem;

// The startup order is part of the service's behaviour: the init binary is
// checked before any directory is made, the stores open after the engine
// probe, recovery runs before the warm pool, and the node registers once
// the listener is bound.
TEST(StartupStepsTest, RunInTheDocumentedOrder) {
  Components c(config::DefaultConfig());
  EXPECT_EQ(StartupSteps(c).names(),
            (std::vector<std::string>{kStepEngineSocket, kStepInitBinary, kStepDirectories,
                                      kStepNosuidMounts, kStepEngineClients, kStepEngineProbe,
                                      kStepJobStore, kStepWebhooks, kStepJobs, kStepExecuteMode,
                                      kStepRecoverJobs, kStepWarmPool, kStepSandboxes, kStepAuth,
                                      kStepListen, kStepNodeRegistry}));
}

// Failures of the steps before the engine is touched: Create stops at the
// failing step, names it, and leaves what comes after it undone.
struct CreateFailureCase {
  const char* name;
  std::function<void(config::Config&, const std::string& base)> setup;
  std::string want_prefix;
  std::vector<std::string> must_not_exist;  // Below `base`.
};

class ServiceCreateTest : public ::testing::TestWithParam<CreateFailureCase> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-service-XXXXXX";
    base_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(base_); }
  std::string base_;
};

TEST_P(ServiceCreateTest, StopsAtTheFailingStepAndNamesIt) {
  const CreateFailureCase& tc = GetParam();
  config::Config cfg = config::DefaultConfig();
  cfg.engine.socket = base_ + "/no-engine.sock";
  cfg.sandbox.init_path = CODERUNNER_INIT_BINARY;
  cfg.data_dir = base_ + "/data";
  cfg.workspace_dir = base_ + "/workspaces";
  cfg.artifacts.dir = base_ + "/artifacts";
  cfg.volumes.dir = base_ + "/volumes";
  tc.setup(cfg, base_);
  auto created = Service::Create(cfg);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(created.status().message().rfind(tc.want_prefix, 0), 0u) << created.status().message();
  for (const std::string& path : tc.must_not_exist) {
    EXPECT_FALSE(fs::exists(base_ + "/" + path)) << path;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ServiceCreateTest,
    ::testing::Values(
        CreateFailureCase{
            "init_binary_missing",
            [](config::Config& cfg, const std::string& base) {
              cfg.sandbox.init_path = base + "/no-such-init";
            },
            std::string(kStepInitBinary) + ": coderunner-init not found or not executable at ",
            {"workspaces", "artifacts", "volumes", "data"}},
        CreateFailureCase{
            "init_binary_not_executable",
            [](config::Config& cfg, const std::string& base) {
              std::ofstream(base + "/init") << "not a program";
              cfg.sandbox.init_path = base + "/init";
            },
            std::string(kStepInitBinary) + ": coderunner-init not found or not executable at ",
            {"workspaces", "artifacts", "volumes", "data"}},
        CreateFailureCase{"workspace_dir_under_a_file",
                          [](config::Config& cfg, const std::string& base) {
                            std::ofstream(base + "/file") << "x";
                            cfg.workspace_dir = base + "/file/workspaces";
                          },
                          std::string(kStepDirectories) + ": cannot create workspace_dir ",
                          {"artifacts", "volumes", "data"}},
        CreateFailureCase{"volumes_dir_under_a_file",
                          [](config::Config& cfg, const std::string& base) {
                            std::ofstream(base + "/file") << "x";
                            cfg.volumes.dir = base + "/file/volumes";
                          },
                          std::string(kStepDirectories) + ": cannot create volumes.dir ",
                          {"data"}},
        // Created here, not by the SQLite store: store.kind postgres needs it too.
        CreateFailureCase{"data_dir_under_a_file",
                          [](config::Config& cfg, const std::string& base) {
                            std::ofstream(base + "/file") << "x";
                            cfg.data_dir = base + "/file/data";
                          },
                          std::string(kStepDirectories) + ": cannot create data_dir ",
                          {}}),
    [](const ::testing::TestParamInfo<CreateFailureCase>& info) { return info.param.name; });

}  // namespace
}  // namespace coderunner::service
