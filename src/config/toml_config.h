// A TOML config file (toml++) as the YAML tree the YAML parser reads, so
// both forms take the same keys, types and ranges. Private to src/config.
#ifndef CODERUNNER_SRC_CONFIG_TOML_CONFIG_H_
#define CODERUNNER_SRC_CONFIG_TOML_CONFIG_H_

#include <yaml-cpp/yaml.h>

#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::config {

// The YAML mapping of TOML document `toml_text`: tables become mappings,
// arrays sequences, strings, numbers, booleans and dates scalars. The
// seed's [tools.code_runner] becomes `code_runner`; any other key under
// [tools] fails naming it (tools.<key>). A syntax error is InvalidArgument
// "config: TOML syntax error at line L, column C: ...". Pure; thread-safe.
StatusOr<YAML::Node> TomlToYaml(std::string_view toml_text);

}  // namespace coderunner::config

#endif  // CODERUNNER_SRC_CONFIG_TOML_CONFIG_H_
