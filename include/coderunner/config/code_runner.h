// CodeRunnerConfig and SecurityConfig: the Code Runner settings of seed 003
// ([tools.code_runner] in TOML, code_runner: in YAML) and security.mode.
// Plain data.
#ifndef CODERUNNER_CONFIG_CODE_RUNNER_H_
#define CODERUNNER_CONFIG_CODE_RUNNER_H_

#include <string>
#include <vector>

namespace coderunner::config {

// Where a job's program runs.
enum class RunMode {
  kSandboxed,  // In a fresh container through the engine (the default).
  kNative,     // As a host process without a container; needs
               // security.mode: permissive.
};

// code_runner.*
struct CodeRunnerConfig {
  // code_runner.enabled: false makes every route that runs code answer 503
  // code_runner_disabled. Default true.
  bool enabled = true;
  // code_runner.runtime: "sandboxed" or "native". Default sandboxed.
  RunMode runtime = RunMode::kSandboxed;
  // code_runner.languages: allowlist over the configured languages (as
  // given; the parser drops every other language from Config::languages).
  // Empty: all configured languages. Default empty.
  std::vector<std::string> languages;
};

// security.mode: "strict" refuses code_runner.runtime: native at startup;
// "permissive" allows it. Default strict.
enum class SecurityMode { kStrict, kPermissive };

// security.*
struct SecurityConfig {
  SecurityMode mode = SecurityMode::kStrict;
};

}  // namespace coderunner::config

#endif  // CODERUNNER_CONFIG_CODE_RUNNER_H_
