// SubmissionJudge: one program judged against its test cases.
//
// A compiled language's program is built once (CompilingRunner::Build);
// then its cases run as a series in one container where the runner can
// (JobRunner::RunSeries: each case a fresh process, and coderunner-init
// clears every process, /tmp, /output and IPC object a case left before
// the next starts), and otherwise each as a job of its own, in a fresh
// container with a fresh workspace, /tmp and /output. Either way under the
// job's policy and the case's limits: no case sees another's files or
// processes. Each case's stdout is
// compared with its expected output (OutputMatches) and given a verdict
// (VerdictOf); the submission's verdict is the first case's that is not
// accepted (OverallVerdict).
#ifndef CODERUNNER_JUDGE_SUBMISSION_JUDGE_H_
#define CODERUNNER_JUDGE_SUBMISSION_JUDGE_H_

#include <functional>
#include <string>
#include <vector>

#include "coderunner/isolation/compiling_runner.h"
#include "coderunner/isolation/job_runner.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/judge/output_match.h"
#include "coderunner/judge/verdict.h"

namespace coderunner::judge {

// One test case: what the program is given, and what it must print.
struct TestCase {
  std::string stdin_data;
  std::vector<std::string> args;
  std::vector<isolation::InputFile> files;  // Beside the program's own.
  std::string expected_output;
  isolation::Limits limits;  // Resolved: the job's, with the case's own overrides.
};

// How a submission is judged.
struct JudgePlan {
  std::vector<TestCase> cases;
  MatchRule rule;
  // After the first case that is not accepted, the rest are skipped.
  bool stop_at_first_failure = false;
};

// How one case went.
// Of each case's stdout and stderr, what its report keeps (the whole was
// judged).
inline constexpr size_t kCaseOutputKeptBytes = 16 << 10;

struct CaseReport {
  Verdict verdict = Verdict::kSkipped;
  // Its run (stdout, stderr, exit code, signal, metrics); default (status
  // error, nothing printed) for a case that was skipped. Each stream is
  // kept up to kCaseOutputKeptBytes.
  isolation::RunResult result;
  bool output_shortened = false;  // A stream was cut to kCaseOutputKeptBytes.
};

struct Judgement {
  Verdict verdict = Verdict::kAccepted;
  // One per case of the plan, in order; all skipped when the program did
  // not build (`verdict` compile_error, or internal_error when the build
  // step itself failed).
  std::vector<CaseReport> cases;
  // The result the job reports as its own: the build's when it did not
  // build, else the deciding case's (the first not accepted, or the last
  // one), with the compile step's outcome and the whole judging's wall
  // time. Its stdout and stderr are kept like a case's.
  isolation::RunResult result;
};

// Runs one case's job. The caller's runner, with its own engine retries,
// output hooks and cancel token (JobExecutor::RunSpec).
using CaseRunner = std::function<isolation::RunResult(const isolation::JobSpec& job)>;
// Runs cases of a program as a series (JobRunner::RunSeries, with the
// caller's output hooks and cancel token); may run fewer than asked.
using SeriesRunner = std::function<size_t(const isolation::JobSpec& program,
                                          const std::vector<isolation::SeriesCase>& cases,
                                          const isolation::SeriesGoOn& go_on)>;

// Thread-safe: Judge keeps no state between calls.
class SubmissionJudge {
 public:
  // `builder` builds compiled languages' programs; it must outlive this.
  explicit SubmissionJudge(isolation::CompilingRunner& builder) : builder_(builder) {}

  // Judges `job` (its code, files and limits) against `plan`. Cases with
  // no files of their own go to `series` first (when set, and there are
  // two or more); whatever it did not run runs through `run`. Case n
  // (from 1) is job `<job.id>-case-<n>`, whose collected /output is
  // removed. `hooks`' cancel token also stops the build. A case that
  // cannot start for our reasons (the engine) is internal_error, never the
  // program's fault.
  Judgement Judge(const isolation::JobSpec& job, const JudgePlan& plan,
                  const isolation::RunHooks& hooks, const CaseRunner& run,
                  const SeriesRunner& series = nullptr) const;

 private:
  // The report of case `c` from its run's `result`.
  CaseReport ReportOf(isolation::RunResult result, const std::string& case_id, const TestCase& c,
                      const MatchRule& rule) const;

  isolation::CompilingRunner& builder_;
};

// The job id of case `n` (from 1) of job `job_id`.
std::string CaseJobId(const std::string& job_id, size_t n);

}  // namespace coderunner::judge

#endif  // CODERUNNER_JUDGE_SUBMISSION_JUDGE_H_
