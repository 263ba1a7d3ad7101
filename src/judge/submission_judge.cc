#include "coderunner/judge/submission_judge.h"

#include <utility>

namespace coderunner::judge {
namespace {

// A case whose run the service itself could not finish (cancelled, or an
// engine that stayed away): every later case would meet the same.
bool EndsTheJudging(const isolation::RunResult& result) {
  return result.status == isolation::RunStatus::kCancelled ||
         result.status == isolation::RunStatus::kError;
}

// Case `n` of `program` (the job, its build placed): its own id, input and
// limits; the program's code, files and build.
isolation::JobSpec CaseJob(const isolation::JobSpec& program, const TestCase& c, size_t n) {
  isolation::JobSpec job = program;
  job.id = CaseJobId(program.id, n);
  job.stdin_data = c.stdin_data;
  job.args = c.args;
  job.limits = c.limits;
  for (const isolation::InputFile& f : c.files) job.files.push_back(f);
  return job;
}

// The result a judged job reports: the first case not accepted (and not
// skipped), else the last that ran.
isolation::RunResult DecidingResult(const std::vector<CaseReport>& cases) {
  const CaseReport* deciding = nullptr;
  for (const CaseReport& c : cases) {
    if (c.verdict == Verdict::kSkipped) break;
    deciding = &c;
    if (c.verdict != Verdict::kAccepted) break;
  }
  return deciding != nullptr ? deciding->result : isolation::RunResult{};
}

// Whether `plan`'s cases may run as a series: two or more, none with files
// of its own (a series' workspace holds the program's files only).
bool SeriesFits(const JudgePlan& plan) {
  if (plan.cases.size() < 2) return false;
  for (const TestCase& c : plan.cases) {
    if (!c.files.empty()) return false;
  }
  return true;
}

}  // namespace

CaseReport SubmissionJudge::ReportOf(isolation::RunResult result, const std::string& case_id,
                                     const TestCase& c, const MatchRule& rule) const {
  CaseReport report;
  report.result = std::move(result);
  builder_.DiscardOutput(case_id);
  report.result.artifacts.clear();
  report.result.artifacts_skipped.clear();
  report.verdict =
      VerdictOf(report.result, OutputMatches(report.result.stdout_data, c.expected_output, rule));
  // Judged in full; kept in part (a thousand cases of a MiB each would
  // not fit an answer).
  for (std::string* data : {&report.result.stdout_data, &report.result.stderr_data}) {
    if (data->size() > kCaseOutputKeptBytes) {
      data->resize(kCaseOutputKeptBytes);
      std::string(*data).swap(*data);
      report.output_shortened = true;
    }
  }
  return report;
}

std::string CaseJobId(const std::string& job_id, size_t n) {
  return job_id + "-case-" + std::to_string(n);
}

Judgement SubmissionJudge::Judge(const isolation::JobSpec& job, const JudgePlan& plan,
                                 const isolation::RunHooks& hooks, const CaseRunner& run,
                                 const SeriesRunner& series) const {
  Judgement out;
  isolation::JobSpec program = job;
  std::optional<isolation::CompileOutcome> compiled;
  int64_t wall_ms = 0;
  if (!job.language.compile.empty()) {
    StatusOr<isolation::BuiltProgram> build = builder_.Build(job, hooks);
    if (!build.ok()) {
      out.verdict = Verdict::kInternalError;
      out.result.error = build.status();
      out.cases.resize(plan.cases.size());
      return out;
    }
    if (build->unbuilt) {
      out.result = std::move(*build->unbuilt);
      out.verdict = VerdictOf(out.result, false);
      out.cases.resize(plan.cases.size());  // Skipped: nothing to run.
      return out;
    }
    program = isolation::RunStepOf(job, *build);
    wall_ms = build->outcome.metrics.wall_ms;
    compiled = std::move(build->outcome);
  }
  bool stopped = false;
  // Each case's report, once its run is known; whether judging stops there.
  auto take = [&](isolation::RunResult result) {
    const size_t i = out.cases.size();
    CaseReport report =
        ReportOf(std::move(result), CaseJobId(program.id, i + 1), plan.cases[i], plan.rule);
    wall_ms += report.result.metrics.wall_ms;
    const bool failed = report.verdict != Verdict::kAccepted;
    stopped = EndsTheJudging(report.result) || (failed && plan.stop_at_first_failure);
    out.cases.push_back(std::move(report));
    return !stopped;
  };
  if (series && SeriesFits(plan)) {
    std::vector<isolation::SeriesCase> cases;
    for (size_t i = 0; i < plan.cases.size(); ++i) {
      const TestCase& c = plan.cases[i];
      cases.push_back({CaseJobId(program.id, i + 1), c.stdin_data, c.args, c.limits});
    }
    // The results come through `take`, as each case ends.
    (void)series(program, cases, [&](isolation::RunResult r) { return take(std::move(r)); });
  }
  while (out.cases.size() < plan.cases.size()) {
    const size_t i = out.cases.size();
    if (stopped) {
      out.cases.emplace_back();  // Skipped.
      continue;
    }
    take(run(CaseJob(program, plan.cases[i], i + 1)));
  }
  std::vector<Verdict> verdicts;
  for (const CaseReport& c : out.cases) verdicts.push_back(c.verdict);
  out.verdict = OverallVerdict(verdicts);
  out.result = DecidingResult(out.cases);
  out.result.compile = std::move(compiled);
  out.result.metrics.wall_ms = wall_ms;
  return out;
}

}  // namespace coderunner::judge
