#include "coderunner/judge/verdict.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <vector>

namespace coderunner::judge {
namespace {

using isolation::RunResult;
using isolation::RunStatus;

RunResult Ran(RunStatus status, int exit_code = 0) {
  RunResult r;
  r.status = status;
  r.exit_code = exit_code;
  return r;
}

TEST(VerdictTest, FromTheRunAndTheMatch) {
  RunResult signalled = Ran(RunStatus::kFailed, 128 + SIGSEGV);
  signalled.signal = SIGSEGV;
  RunResult flooded = Ran(RunStatus::kSucceeded);
  flooded.stdout_truncated = true;
  RunResult unbuilt = Ran(RunStatus::kFailed, -1);
  unbuilt.compile = isolation::CompileOutcome{RunStatus::kFailed, 1, 0, "error", false, {}};
  RunResult step_failed = Ran(RunStatus::kError, -1);
  step_failed.compile = isolation::CompileOutcome{RunStatus::kError, -1, 0, "", false, {}};
  RunResult built = Ran(RunStatus::kSucceeded);
  built.compile = isolation::CompileOutcome{RunStatus::kSucceeded, 0, 0, "", false, {}};
  struct Case {
    const char* name;
    RunResult result;
    bool matches;
    Verdict want;
  };
  const Case cases[] = {
      {"exit 0, matching", Ran(RunStatus::kSucceeded), true, Verdict::kAccepted},
      {"exit 0, not matching", Ran(RunStatus::kSucceeded), false, Verdict::kWrongAnswer},
      {"built, matching", built, true, Verdict::kAccepted},
      {"non-zero exit, even matching", Ran(RunStatus::kFailed, 1), true, Verdict::kRuntimeError},
      {"a signal", signalled, false, Verdict::kRuntimeError},
      {"timeout", Ran(RunStatus::kTimeout, -1), true, Verdict::kTimeLimit},
      {"oom", Ran(RunStatus::kOom, -1), false, Verdict::kMemoryLimit},
      {"cut output", flooded, true, Verdict::kOutputLimit},
      {"did not compile", unbuilt, false, Verdict::kCompileError},
      {"the compile step's own failure", step_failed, false, Verdict::kInternalError},
      {"the service's failure", Ran(RunStatus::kError, -1), false, Verdict::kInternalError},
      {"cancelled", Ran(RunStatus::kCancelled, -1), false, Verdict::kInternalError},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(VerdictName(VerdictOf(c.result, c.matches)), VerdictName(c.want));
  }
}

TEST(VerdictTest, OverallIsTheFirstCaseNotAccepted) {
  struct Case {
    std::vector<Verdict> cases;
    Verdict want;
  };
  const Case cases[] = {
      {{}, Verdict::kAccepted},
      {{Verdict::kAccepted, Verdict::kAccepted}, Verdict::kAccepted},
      {{Verdict::kAccepted, Verdict::kTimeLimit, Verdict::kWrongAnswer}, Verdict::kTimeLimit},
      {{Verdict::kWrongAnswer, Verdict::kInternalError}, Verdict::kWrongAnswer},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(VerdictName(OverallVerdict(c.cases)), VerdictName(c.want));
  }
}

}  // namespace
}  // namespace coderunner::judge
