// service_bench's "judge" section (issue 35): what a test case of a judged
// C++ submission costs, against the same program run as separate jobs; and
// HumanEval judged, a submission per problem with its asserts as cases.
#ifndef CODERUNNER_BENCH_JUDGE_BENCH_H_
#define CODERUNNER_BENCH_JUDGE_BENCH_H_

#include <httplib.h>

#include <vector>

#include "humaneval.h"

namespace bench {

// One C++ submission judged over `cases` cases (one request), against the
// same program and inputs as `cases` separate jobs (each compiles, all
// submitted at once through /v1/jobs/batch): the wall time of each, per
// case, and the ratio (issue 35 asks for at most 1/10). Every case must be
// accepted and every job print its answer.
void JudgeCost(httplib::Client& service, int cases);

// HumanEval in judging form: each problem one judged submission whose
// cases are its check's top-level asserts (case k keeps the k-th assert and
// every other statement), all submitted at once through /v1/jobs/batch,
// against the one-job-per-problem run (RunHumanEval): problems accepted
// and the wall time of each.
void HumanEvalJudged(httplib::Client& service, const std::vector<Problem>& problems);

}  // namespace bench

#endif  // CODERUNNER_BENCH_JUDGE_BENCH_H_
