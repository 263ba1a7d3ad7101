#include "coderunner/judge/verdict.h"

namespace coderunner::judge {

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kAccepted:
      return "accepted";
    case Verdict::kWrongAnswer:
      return "wrong_answer";
    case Verdict::kTimeLimit:
      return "time_limit";
    case Verdict::kMemoryLimit:
      return "memory_limit";
    case Verdict::kOutputLimit:
      return "output_limit";
    case Verdict::kRuntimeError:
      return "runtime_error";
    case Verdict::kCompileError:
      return "compile_error";
    case Verdict::kInternalError:
      return "internal_error";
    case Verdict::kSkipped:
      return "skipped";
  }
  return "internal_error";
}

Verdict VerdictOf(const isolation::RunResult& result, bool output_matches) {
  using isolation::RunStatus;
  if (result.compile && result.compile->status != RunStatus::kSucceeded) {
    return result.status == RunStatus::kFailed ? Verdict::kCompileError : Verdict::kInternalError;
  }
  switch (result.status) {
    case RunStatus::kError:
    case RunStatus::kCancelled:
      return Verdict::kInternalError;
    case RunStatus::kTimeout:
      return Verdict::kTimeLimit;
    case RunStatus::kOom:
      return Verdict::kMemoryLimit;
    case RunStatus::kFailed:
    case RunStatus::kSucceeded:
      break;
  }
  // Cut output cannot be judged: the program printed more than it may.
  if (result.stdout_truncated || result.stderr_truncated) return Verdict::kOutputLimit;
  if (result.status == RunStatus::kFailed) return Verdict::kRuntimeError;
  return output_matches ? Verdict::kAccepted : Verdict::kWrongAnswer;
}

Verdict OverallVerdict(std::span<const Verdict> cases) {
  for (Verdict v : cases) {
    if (v != Verdict::kAccepted) return v;
  }
  return Verdict::kAccepted;
}

}  // namespace coderunner::judge
