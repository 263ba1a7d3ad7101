// code_runner.runtime and security.mode: read, checked, and native refused
// unless permissive.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "coderunner/config/config.h"

namespace coderunner::config {
namespace {

StatusOr<Config> LoadText(const std::string& yaml) {
  std::string path = ::testing::TempDir() + "/run_mode_XXXXXX.yaml";
  int fd = mkstemps(path.data(), 5);
  if (fd < 0) return InternalError("mkstemps");
  close(fd);
  std::ofstream(path) << yaml;
  auto c = LoadConfigFile(path);
  unlink(path.c_str());
  return c;
}

TEST(RunModeTest, ReadsRuntimeAndSecurityMode) {
  struct Case {
    const char* name;
    std::string yaml;
    bool ok;
    RunMode runtime;
    SecurityMode mode;
    std::vector<std::string> error_names;  // Each must appear in the error.
  };
  const Case cases[] = {
      {"defaults", "{}", true, RunMode::kSandboxed, SecurityMode::kStrict, {}},
      {"sandboxed strict",
       "code_runner: {runtime: sandboxed}\nsecurity: {mode: strict}\n",
       true,
       RunMode::kSandboxed,
       SecurityMode::kStrict,
       {}},
      {"native permissive",
       "code_runner: {runtime: native}\nsecurity: {mode: permissive}\n",
       true,
       RunMode::kNative,
       SecurityMode::kPermissive,
       {}},
      {"native alone",
       "code_runner: {runtime: native}\n",
       false,
       {},
       {},
       {"code_runner.runtime: native needs security.mode: permissive"}},
      {"native strict",
       "code_runner: {runtime: native}\nsecurity: {mode: strict}\n",
       false,
       {},
       {},
       {"code_runner.runtime", "security.mode"}},
      {"bad runtime", "code_runner: {runtime: docker}\n", false, {}, {}, {"code_runner.runtime"}},
      {"bad mode", "security: {mode: lax}\n", false, {}, {}, {"security.mode"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto cfg = LoadText(c.yaml);
    ASSERT_EQ(cfg.ok(), c.ok) << cfg.status().ToString();
    if (!c.ok) {
      for (const auto& name : c.error_names) {
        EXPECT_NE(cfg.status().message().find(name), std::string::npos) << cfg.status().message();
      }
      continue;
    }
    EXPECT_EQ(cfg->code_runner.runtime, c.runtime);
    EXPECT_EQ(cfg->security.mode, c.mode);
  }
}

}  // namespace
}  // namespace coderunner::config
