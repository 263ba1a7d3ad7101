// The built-in agent profiles: config/agents/*.yaml, compiled in at build
// time (CMakeLists.txt generates the definition), so a service always has
// them wherever it is installed.
#ifndef CODERUNNER_INTENT_BUILTIN_AGENTS_H_
#define CODERUNNER_INTENT_BUILTIN_AGENTS_H_

#include <string_view>
#include <utility>
#include <vector>

namespace coderunner::intent {

// (file name, YAML text) of every built-in profile, in file-name order.
// Static data; thread-safe.
const std::vector<std::pair<std::string_view, std::string_view>>& BuiltinAgentYaml();

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_BUILTIN_AGENTS_H_
