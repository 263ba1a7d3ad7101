// TOML config files: the seed's [tools.code_runner] section verbatim, the
// same keys/types/ranges as YAML, and syntax errors naming file and line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "coderunner/config/config.h"
#include "config/config_toml.h"

namespace coderunner::config {
namespace {

using ::testing::HasSubstr;

// Seed 003's section, verbatim.
constexpr char kSeedSection[] = R"([tools.code_runner]
enabled = true
runtime = "sandboxed"
languages = ["python", "javascript", "typescript"]
timeout = 30
max_memory = "256MB"
)";

TEST(TomlConfigTest, SeedSectionVerbatim) {
  for (const std::string security : {"", "\n[security]\nmode = \"permissive\"\n"}) {
    SCOPED_TRACE(security);
    auto c = ParseConfigToml(std::string(kSeedSection) + security);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_TRUE(c->code_runner.enabled);
    EXPECT_EQ(c->code_runner.runtime, RunMode::kSandboxed);
    EXPECT_EQ(c->languages.size(), 3u);
    EXPECT_EQ(c->FindLanguage("bash"), nullptr);
    EXPECT_EQ(c->default_limits.timeout_ms, 30000);
    EXPECT_EQ(c->default_limits.cpu_ms, 30000);
    EXPECT_EQ(c->default_limits.memory_bytes, 256LL << 20);
    EXPECT_EQ(c->security.mode,
              security.empty() ? SecurityMode::kStrict : SecurityMode::kPermissive);
  }
}

TEST(TomlConfigTest, SameValuesAsYaml) {
  auto toml = ParseConfigToml(
      "instance = \"t1\"\n"
      "[server]\nlisten = \"0.0.0.0:9000\"\nthreads = 8\nmax_body_bytes = \"4MiB\"\n"
      "[limits.max]\ncpus = 1.5\n"
      "[jobs]\nwebhook_allow_private = true\n"
      "[code_runner]\nruntime = \"native\"\n"
      "[security]\nmode = \"permissive\"\n");
  auto yaml = ParseConfig(
      "instance: t1\n"
      "server: {listen: \"0.0.0.0:9000\", threads: 8, max_body_bytes: 4MiB}\n"
      "limits: {max: {cpus: 1.5}}\n"
      "jobs: {webhook_allow_private: true}\n"
      "code_runner: {runtime: native}\n"
      "security: {mode: permissive}\n");
  ASSERT_TRUE(toml.ok()) << toml.status().ToString();
  ASSERT_TRUE(yaml.ok()) << yaml.status().ToString();
  EXPECT_EQ(toml->instance, yaml->instance);
  EXPECT_EQ(toml->server.listen, yaml->server.listen);
  EXPECT_EQ(toml->server.threads, yaml->server.threads);
  EXPECT_EQ(toml->server.max_body_bytes, yaml->server.max_body_bytes);
  EXPECT_EQ(toml->max_limits.cpus, yaml->max_limits.cpus);
  EXPECT_EQ(toml->jobs.webhook_allow_private, yaml->jobs.webhook_allow_private);
  EXPECT_EQ(toml->code_runner.runtime, RunMode::kNative);
}

TEST(TomlConfigTest, ErrorsNameTheKey) {
  struct Case {
    const char* toml;
    const char* error;
  };
  const Case cases[] = {
      {"[tools.code_runner]\nruntime = \"native\"\n", "config: code_runner.runtime:"},
      {"[tools.code_runner]\nruntime = \"native\"\n[security]\nmode = \"strict\"\n",
       "security.mode: permissive"},
      {"[tools.browser]\nenabled = true\n", "config: tools.browser: unknown key"},
      {"tools = 3\n", "config: tools: expected a table"},
      {"[tools.code_runner]\nenabled = true\n[code_runner]\nenabled = false\n",
       "config: tools.code_runner: given twice"},
      {"[server]\nport = 80\n", "config: server.port: unknown key"},
      {"[server]\nthreads = \"many\"\n", "config: server.threads:"},
      {"[server]\nthreads = 1.5\n", "config: server.threads:"},
      {"[server]\nthreads = 0\n", "config: server.threads: must be between"},
      {"[tools.code_runner]\nmax_memory = \"256 MB\"\n",
       "config: code_runner.max_memory: no space"},
      {"[tools.code_runner]\nlanguages = [\"cobol\"]\n", "config: code_runner.languages:"},
      {"[tools.code_runner]\nenabled = true\ntimeout = 30\nmax_memory = \"256MB\"\ntimeout = 5\n",
       "config: TOML syntax error at line 5"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.toml);
    auto got = ParseConfigToml(c.toml);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr(c.error));
  }
}

TEST(TomlConfigTest, FileByExtensionAndSyntaxErrorNamesFileAndLine) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("cr_toml_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  std::string good = (dir / "good.toml").string();
  std::string bad = (dir / "bad.toml").string();
  std::ofstream(good) << kSeedSection;
  std::ofstream(bad) << "[tools.code_runner]\nenabled = true\nruntime = sandboxed\n";
  auto ok = LoadConfigFile(good);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->default_limits.timeout_ms, 30000);
  auto err = LoadConfigFile(bad);
  ASSERT_FALSE(err.ok());
  EXPECT_THAT(err.status().message(), HasSubstr(bad));
  EXPECT_THAT(err.status().message(), HasSubstr("line 3"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace coderunner::config
