#include "coderunner/wire/judgement_json.h"

#include "coderunner/wire/result_json.h"

namespace coderunner::wire {
namespace {

nlohmann::json CaseToJson(const judge::CaseReport& c, OutputEncoding encoding) {
  nlohmann::json j = {{"verdict", judge::VerdictName(c.verdict)}};
  if (c.verdict == judge::Verdict::kSkipped) return j;
  const isolation::RunResult& r = c.result;
  const bool ran =
      r.status != isolation::RunStatus::kError && r.status != isolation::RunStatus::kCancelled;
  j["status"] = isolation::RunStatusName(r.status);
  j["exit_code"] = ran ? nlohmann::json(r.exit_code) : nlohmann::json(nullptr);
  j["signal"] =
      ran && r.signal > 0 ? nlohmann::json(SignalName(r.signal)) : nlohmann::json(nullptr);
  j["stdout"] = RenderOutput(r.stdout_data, r.stdout_truncated || c.output_shortened, encoding);
  j["stderr"] = RenderOutput(r.stderr_data, r.stderr_truncated || c.output_shortened, encoding);
  j["stdout_truncated"] = r.stdout_truncated;
  j["stderr_truncated"] = r.stderr_truncated;
  j["output_shortened"] = c.output_shortened;
  j["metrics"] = MetricsJson(r.metrics);
  if (!r.error.ok()) j["error"] = {{"code", r.error.reason()}, {"message", r.error.message()}};
  return j;
}

}  // namespace

nlohmann::json JudgementToJson(const judge::Judgement& judgement, OutputEncoding encoding) {
  nlohmann::json cases = nlohmann::json::array();
  int passed = 0;
  for (const judge::CaseReport& c : judgement.cases) {
    if (c.verdict == judge::Verdict::kAccepted) ++passed;
    cases.push_back(CaseToJson(c, encoding));
  }
  return {{"verdict", judge::VerdictName(judgement.verdict)},
          {"passed", passed},
          {"total", judgement.cases.size()},
          {"cases", std::move(cases)}};
}

}  // namespace coderunner::wire
