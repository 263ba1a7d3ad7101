// JSON rendering of a judged program's verdicts: the "judge" section of
// its result.
#ifndef CODERUNNER_WIRE_JUDGEMENT_JSON_H_
#define CODERUNNER_WIRE_JUDGEMENT_JSON_H_

#include <nlohmann/json.hpp>

#include "coderunner/judge/submission_judge.h"
#include "coderunner/wire/execute_request.h"

namespace coderunner::wire {

// {"verdict", "passed", "total", "cases": [{"verdict", "status",
// "exit_code", "signal", "stdout", "stderr", "stdout_truncated",
// "stderr_truncated", "output_shortened", "metrics"}]}; a skipped case is
// {"verdict": "skipped"}. Outputs are rendered as the result's are
// (RenderOutput). Pure; thread-safe.
nlohmann::json JudgementToJson(const judge::Judgement& judgement, OutputEncoding encoding);

}  // namespace coderunner::wire

#endif  // CODERUNNER_WIRE_JUDGEMENT_JSON_H_
