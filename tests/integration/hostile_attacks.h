// The hostile corpus's attacks (tests/hostile/) and what containment means
// for each, shared by the suites that send them by different routes: a job
// (/v1/execute: AdversarialTest, ContainmentTest), MCP's run_code
// (McpAdversarialTest) and a sandbox's commands (E2B's commands.run:
// E2bSdkTest). An answer here is a job's result as /v1/execute gives it, or
// as much of one as the route gives: status, exit_code, stdout, stderr and
// limits.
#ifndef CODERUNNER_TESTS_INTEGRATION_HOSTILE_ATTACKS_H_
#define CODERUNNER_TESTS_INTEGRATION_HOSTILE_ATTACKS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace coderunner::testing {

// sandbox.nofile of the servers these attacks are sent to: RLIMIT_NOFILE of
// every job and every sandbox process.
inline constexpr int64_t kHostileNofile = 256;

struct Attack {
  const char* file;
  const char* language;
  nlohmann::json limits;               // Request limits ({} for defaults).
  std::set<std::string> statuses;      // Acceptable end statuses.
  std::vector<std::string> must_have;  // Substrings stdout must contain.
  std::vector<std::string> must_not;   // Substrings stdout must not contain.
  // The containment itself, from what the program measured; empty when
  // the substrings above say it all.
  std::function<void(const nlohmann::json&)> check = nullptr;
};

// The bombs get the largest CPU budget: under gVisor the CPU watchdog adds
// up the guest's per-task CPU times, which a few dozen runnable tasks on
// one CPU inflate many times over (a bash fork bomb reads 15 s of CPU after
// 1 s), and it would end the job before the program reports.
nlohmann::json BombLimits();

// Every attack AdversarialTest sends as a job.
std::vector<Attack> Attacks();

// The answer's status is one of the attack's, its stdout has what it must
// and nothing it must not, stays under the output cap, and the attack's own
// check holds.
void ExpectAttackContained(const Attack& attack, const nlohmann::json& answer);

// "NAME VALUE" lines a program must report, exactly.
using Expected = std::map<std::string, std::string>;
void ExpectExactly(const nlohmann::json& answer, const Expected& want);

// syscall_matrix.py: each call refused with exactly the errno of
// coderunner-init's filter (src/init/syscall_filter.h).
Expected SyscallFilterWant(bool under_gvisor);

// pid1_takeover.py: every way to read, write or signal PID 1 refused.
Expected Pid1TakeoverWant(bool under_gvisor);

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_HOSTILE_ATTACKS_H_
