// The Code Runner settings of seed 003 in the config file: `code_runner:`
// (TOML [tools.code_runner]), `security:`, and the language allowlist that
// both `code_runner.languages` and a top-level `languages:` list apply.
// Private to src/config.
#ifndef CODERUNNER_SRC_CONFIG_CODE_RUNNER_SECTION_H_
#define CODERUNNER_SRC_CONFIG_CODE_RUNNER_SECTION_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "config_table.h"

namespace coderunner::config {

// Reads root["code_runner"] into c->code_runner, and its `timeout`
// (seconds, or a duration: "30s", "2m") into limits.default.timeout_ms and
// cpu_ms and its `max_memory` (bytes, or a size: "256MB") into
// limits.default.memory_bytes. Runs after limits: and languages:. Errors
// name the code_runner key: unknown keys and values, a limit above
// limits.max or below the floor, a limit that limits.default also gives
// with another value, an allowlist entry that names no language.
Status ReadCodeRunner(const YAML::Node& root, Config* c);
void DescribeCodeRunner(std::vector<KeyInfo>* out);

// Reads root["security"] (mode: strict | permissive) into c->security.
Status ReadSecurity(const YAML::Node& root, Config* c);
void DescribeSecurity(std::vector<KeyInfo>* out);

// Keeps only the languages named (by name or alias) in `allow`, in their
// configured order; empty `allow` keeps all. If the default language is
// dropped, the first one left becomes the default. A name that no
// configured language has fails naming `path`.
Status ApplyLanguageAllowlist(const std::vector<std::string>& allow, const std::string& path,
                              Config* c);

// code_runner.runtime: native needs security.mode: permissive.
Status CheckCodeRunner(const Config& c);

}  // namespace coderunner::config

#endif  // CODERUNNER_SRC_CONFIG_CODE_RUNNER_SECTION_H_
