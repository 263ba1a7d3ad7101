#include "code_runner_gate.h"

#include <regex>
#include <string>

namespace coderunner::api {

bool RunsCode(std::string_view method, std::string_view path) {
  static const std::regex kRunsCode(
      "/v1/(execute|jobs|jobs/batch|jobs/job-[0-9a-f]{24}/replay|intents|sandboxes|"
      "sandboxes/sbx-[0-9a-f]{24}/execute)|/api/v2(/piston)?/execute");
  return method == "POST" && std::regex_match(std::string(path), kRunsCode);
}

Status CodeRunnerDisabledError() {
  return UnavailableError(
      "the code runner is disabled (code_runner.enabled: false in the service's config)",
      kReasonCodeRunnerDisabled);
}

}  // namespace coderunner::api
