// Verdict: how one test case of a judged submission went, as online judges
// name it, from the run's result and whether its output matched.
#ifndef CODERUNNER_JUDGE_VERDICT_H_
#define CODERUNNER_JUDGE_VERDICT_H_

#include <span>
#include <string_view>

#include "coderunner/isolation/job_spec.h"

namespace coderunner::judge {

enum class Verdict {
  kAccepted,
  kWrongAnswer,
  kTimeLimit,      // The wall clock or the CPU time ran out.
  kMemoryLimit,    // The memory limit killed it.
  kOutputLimit,    // It printed past the output cap.
  kRuntimeError,   // A non-zero exit, a signal of its own, a bound on /output.
  kCompileError,   // The program never ran: it did not compile.
  kInternalError,  // The service's or the engine's failure, never the program's.
  kSkipped,        // Not run: an earlier case failed (stop at the first failure).
};

// "accepted", "wrong_answer", "time_limit", "memory_limit", "output_limit",
// "runtime_error", "compile_error", "internal_error", "skipped".
std::string_view VerdictName(Verdict verdict);

// The verdict of a case that ran as `result`; `output_matches` says whether
// its stdout is the expected one (it counts only for a run that ended on
// its own with exit 0). Pure.
Verdict VerdictOf(const isolation::RunResult& result, bool output_matches);

// A submission's verdict over its cases, in order: the first that is not
// accepted; accepted when every one is (and when there are none). Pure.
Verdict OverallVerdict(std::span<const Verdict> cases);

}  // namespace coderunner::judge

#endif  // CODERUNNER_JUDGE_VERDICT_H_
