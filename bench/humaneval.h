// HumanEval's 164 problems as coderunner jobs, shared by service_bench's
// "throughput" and "fleet" sections: loading them, and one run of all of them
// submitted at once through POST /v1/jobs.
#ifndef CODERUNNER_BENCH_HUMANEVAL_H_
#define CODERUNNER_BENCH_HUMANEVAL_H_

#include <httplib.h>

#include <string>
#include <vector>

namespace bench {

// One HumanEval problem: its task_id and the program that must exit 0
// (prompt + canonical solution + test + check(entry_point)).
struct Problem {
  std::string id;
  std::string program;
  // Its parts: prompt + canonical solution, the test (defining check) and
  // the entry point check is called with.
  std::string solution;
  std::string test;
  std::string entry_point;
};

// The problems of a HumanEval .jsonl file (uncompressed), in file order;
// empty when the file is missing or empty. Throws nlohmann::json's
// exceptions on a malformed line.
std::vector<Problem> LoadHumanEval(const std::string& path);

// What one run of every problem through the async API gave.
struct HumanEvalRun {
  double wall_s = 0;                // From the first POST to the last wait's answer, seconds.
  int passed = 0;                   // Jobs that ended "succeeded".
  std::vector<std::string> failed;  // task_ids of the others (refused, failed, timed out).
  double jobs_cpu_s = 0;            // Sum of the jobs' result.metrics.cpu_ms, seconds.
};

// Submits every problem at once through POST /v1/jobs on `c` (python,
// `"cache": false`, a per-run comment so that nothing is served from a
// cache), then waits for each in turn with GET /v1/jobs/{id}/wait
// (timeout_s=300). `c` needs a read timeout above 300 s. Failures are
// counted, never thrown. Not thread-safe on `c` (httplib::Client).
HumanEvalRun RunHumanEval(httplib::Client& c, const std::vector<Problem>& problems);

}  // namespace bench

#endif  // CODERUNNER_BENCH_HUMANEVAL_H_
