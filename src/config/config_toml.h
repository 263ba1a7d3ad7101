// The TOML form of the config file (seed 003 ships its Code Runner
// settings as TOML). LoadConfigFile (config.h) reads a path ending in
// ".toml" with it. Private to src/config (and its tests).
#ifndef CODERUNNER_SRC_CONFIG_CONFIG_TOML_H_
#define CODERUNNER_SRC_CONFIG_CONFIG_TOML_H_

#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"

namespace coderunner::config {

// Parses TOML text (toml++) over DefaultConfig() as ParseConfig parses YAML:
// the document becomes the same YAML tree, so unknown keys, types and
// ranges behave identically. Tables are sections; the seed's
// [tools.code_runner] is code_runner, and any other key under [tools] is
// InvalidArgument naming it. A TOML syntax error is InvalidArgument
// "config: TOML syntax error at line L, column C: ...". Pure; thread-safe.
StatusOr<Config> ParseConfigToml(std::string_view toml_text);

}  // namespace coderunner::config

#endif  // CODERUNNER_SRC_CONFIG_CONFIG_TOML_H_
