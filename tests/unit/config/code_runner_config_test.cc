// code_runner: and security: (seed 003), the language allowlist, and
// engine.socket's unix:// form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coderunner/config/config.h"

namespace coderunner::config {
namespace {

// The built-in languages, in order.
const std::vector<std::string> kAllLanguages = {"python", "javascript", "typescript", "bash", "c",
                                                "cpp",    "go",         "java",       "rust"};

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;

std::vector<std::string> Names(const Config& c) {
  std::vector<std::string> out;
  for (const auto& l : c.languages) out.push_back(l.name);
  return out;
}

TEST(CodeRunnerConfigTest, DefaultsAreEnabledSandboxedStrictAllLanguages) {
  auto c = ParseConfig("");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->code_runner.enabled);
  EXPECT_EQ(c->code_runner.runtime, RunMode::kSandboxed);
  EXPECT_TRUE(c->code_runner.languages.empty());
  EXPECT_EQ(c->security.mode, SecurityMode::kStrict);
  EXPECT_EQ(Names(*c), kAllLanguages);
}

TEST(CodeRunnerConfigTest, SeedSectionSetsLimitsAndAllowlist) {
  auto c = ParseConfig(
      "code_runner:\n"
      "  enabled: true\n"
      "  runtime: sandboxed\n"
      "  languages: [python, javascript, typescript]\n"
      "  timeout: 30\n"
      "  max_memory: \"256MB\"\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->default_limits.timeout_ms, 30000);
  EXPECT_EQ(c->default_limits.cpu_ms, 30000);
  EXPECT_EQ(c->default_limits.memory_bytes, 256 * kMiB);
  EXPECT_EQ(Names(*c), (std::vector<std::string>{"python", "javascript", "typescript"}));
  EXPECT_EQ(c->DefaultLanguage().name, "python");
  EXPECT_EQ(c->FindLanguage("bash"), nullptr);
}

TEST(CodeRunnerConfigTest, ParsedValues) {
  struct Case {
    const char* name;
    const char* yaml;
    std::vector<std::string> languages;  // Configured after the allowlist.
    const char* default_language;
    int64_t timeout_ms;
    int64_t memory_bytes;
  };
  const Case cases[] = {
      {"durations and sizes", "code_runner: {timeout: 45s, max_memory: 1GiB}", kAllLanguages,
       "python", 45000, 1024 * kMiB},
      {"fraction", "code_runner: {timeout: 1.5s, max_memory: 0.5GiB}", kAllLanguages, "python",
       1500, 512 * kMiB},
      {"aliases allow",
       "code_runner: {languages: [ts, js]}",
       {"javascript", "typescript"},
       "javascript",
       10000,
       256 * kMiB},
      {"default dropped", "code_runner: {languages: [bash]}", {"bash"}, "bash", 10000, 256 * kMiB},
      {"empty list is all", "code_runner: {languages: []}", kAllLanguages, "python", 10000,
       256 * kMiB},
      {"top-level list",
       "languages: [typescript, python]",
       {"python", "typescript"},
       "python",
       10000,
       256 * kMiB},
      {"equal to limits.default",
       "limits: {default: {timeout_ms: 20000, cpu_ms: 20000}}\ncode_runner: {timeout: 20}",
       kAllLanguages, "python", 20000, 256 * kMiB},
      {"within a raised max",
       "limits: {max: {timeout_ms: 120000, cpu_ms: 120000}}\n"
       "code_runner: {timeout: 2m}",
       kAllLanguages, "python", 120000, 256 * kMiB},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = ParseConfig(c.yaml);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_THAT(Names(*got), ElementsAreArray(c.languages));
    EXPECT_EQ(got->DefaultLanguage().name, c.default_language);
    int defaults = 0;
    for (const auto& l : got->languages) defaults += l.is_default ? 1 : 0;
    EXPECT_EQ(defaults, 1);
    EXPECT_EQ(got->default_limits.timeout_ms, c.timeout_ms);
    EXPECT_EQ(got->default_limits.cpu_ms, c.timeout_ms);
    EXPECT_EQ(got->default_limits.memory_bytes, c.memory_bytes);
  }
}

TEST(CodeRunnerConfigTest, RuntimeAndSecurityMode) {
  auto native = ParseConfig("code_runner: {runtime: native}\nsecurity: {mode: permissive}\n");
  ASSERT_TRUE(native.ok()) << native.status().ToString();
  EXPECT_EQ(native->code_runner.runtime, RunMode::kNative);
  EXPECT_EQ(native->security.mode, SecurityMode::kPermissive);
  auto off = ParseConfig("code_runner: {enabled: false}\nsecurity: {mode: strict}\n");
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->code_runner.enabled);
  EXPECT_EQ(off->security.mode, SecurityMode::kStrict);
}

TEST(CodeRunnerConfigTest, BadValuesFailNamingTheKey) {
  struct Case {
    const char* yaml;
    std::vector<const char*> in_error;
  };
  const Case cases[] = {
      {"code_runner: {runtime: native}",
       {"config: code_runner.runtime:", "security.mode: permissive"}},
      {"code_runner: {runtime: native}\nsecurity: {mode: strict}",
       {"code_runner.runtime", "security.mode"}},
      {"code_runner: {runtime: docker}",
       {"config: code_runner.runtime: must be sandboxed or native"}},
      {"security: {mode: lax}", {"config: security.mode: must be strict or permissive"}},
      {"security: {level: 3}", {"config: security.level: unknown key"}},
      {"code_runner: {timeout_s: 3}", {"config: code_runner.timeout_s: unknown key"}},
      {"code_runner: {enabled: maybe}", {"config: code_runner.enabled"}},
      {"code_runner: {languages: [python, cobol]}",
       {"config: code_runner.languages: 'cobol' is not a configured language", "python"}},
      {"languages: [cobol]", {"config: languages: 'cobol' is not a configured language"}},
      {"code_runner: {languages: python}", {"config: code_runner.languages: expected a list"}},
      {"code_runner: {timeout: 2m}",
       {"config: code_runner.timeout:", "above limits.max.timeout_ms"}},
      {"code_runner: {timeout: 0}", {"config: code_runner.timeout: must be at least"}},
      {"code_runner: {timeout: 30 s}", {"config: code_runner.timeout: no space"}},
      {"code_runner: {timeout: [30]}", {"config: code_runner.timeout: expected seconds"}},
      {"code_runner: {max_memory: 2GiB}",
       {"config: code_runner.max_memory:", "above limits.max.memory_bytes"}},
      {"code_runner: {max_memory: 1MB}", {"config: code_runner.max_memory: must be at least"}},
      {"code_runner: {max_memory: 256XB}", {"config: code_runner.max_memory: unknown unit"}},
      {"limits: {default: {timeout_ms: 5000}}\ncode_runner: {timeout: 30}",
       {"config: code_runner.timeout: conflicts with limits.default.timeout_ms"}},
      {"limits: {default: {memory_bytes: 128MiB}}\ncode_runner: {max_memory: 256MB}",
       {"config: code_runner.max_memory: conflicts with limits.default.memory_bytes"}},
      {"code_runner: 5", {"config: code_runner: expected a mapping"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto got = ParseConfig(c.yaml);
    ASSERT_FALSE(got.ok());
    for (const char* part : c.in_error) EXPECT_THAT(got.status().message(), HasSubstr(part));
  }
}

TEST(CodeRunnerConfigTest, EngineSocketTakesUnixScheme) {
  struct Case {
    const char* socket;
    const char* want;  // nullptr: refused naming engine.socket.
  };
  const Case cases[] = {
      {"unix:///run/docker.sock", "/run/docker.sock"},
      {"/run/podman/podman.sock", "/run/podman/podman.sock"},
      {"\"\"", ""},
      {"tcp://127.0.0.1:2375", nullptr},
      {"http://localhost/x", nullptr},
      {"unix://run/docker.sock", nullptr},
      {"unix://", nullptr},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.socket);
    auto got = ParseConfig(std::string("engine: {socket: ") + c.socket + "}");
    if (c.want == nullptr) {
      ASSERT_FALSE(got.ok());
      EXPECT_THAT(got.status().message(), HasSubstr("config: engine.socket:"));
    } else {
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(got->engine.socket, c.want);
    }
  }
}

}  // namespace
}  // namespace coderunner::config
