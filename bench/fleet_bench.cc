#include "fleet_bench.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "bench_common.h"

namespace bench {
namespace {

// Issue 19's bound: the fleet's throughput over one node's.
constexpr double kMinFleetOverSolo = 0.95;
// Unmeasured print(1+1) jobs per side first (through the balancer they
// spread over the nodes): the pools' first fills, the stores' connections.
constexpr int kWarmUpRuns = 4;
// The pause after each measured run, on top of LetPoolSettle: the previous
// run's containers are removed and the pools refilled in the background.
constexpr auto kSettle = std::chrono::seconds(3);

// One side's measured runs.
struct Side {
  std::string name;
  int jobs = 0;
  double wall_s = 0;
  int worst_passed = -1;  // The fewest passed in one round; -1 before any.
};

void Settle(httplib::Client& c) {
  // Through the balancer each /metrics read reaches one node: twice.
  LetPoolSettle(c);
  LetPoolSettle(c);
  std::this_thread::sleep_for(kSettle);
}

void RunOnce(httplib::Client& c, const std::vector<Problem>& problems, int round, Side& side) {
  HumanEvalRun run = RunHumanEval(c, problems);
  side.jobs += static_cast<int>(problems.size());
  side.wall_s += run.wall_s;
  if (side.worst_passed < 0 || run.passed < side.worst_passed) side.worst_passed = run.passed;
  printf("  round %d  %-34s %7.2f s  %6.2f jobs/s  passed %d/%zu\n", round, side.name.c_str(),
         run.wall_s, problems.size() / run.wall_s, run.passed, problems.size());
  for (const auto& f : run.failed) printf("    failed: %s\n", f.c_str());
  Settle(c);
}

}  // namespace

void FleetThroughput(httplib::Client& solo, httplib::Client& fleet,
                     const std::vector<Problem>& problems, int rounds,
                     const std::string& fleet_label) {
  printf(
      "\n== fleet: HumanEval, %zu problems submitted at once through POST /v1/jobs, %d interleaved "
      "rounds: one node alone against %s\n",
      problems.size(), rounds, fleet_label.c_str());
  for (int i = 0; i < kWarmUpRuns; ++i) {
    (void)ExecuteTwo(solo, "python", "print(1+1) # fleet warm-up " + UniqueTag(i));
    (void)ExecuteTwo(fleet, "python", "print(1+1) # fleet warm-up " + UniqueTag(i));
  }
  Settle(solo);
  Settle(fleet);
  Side one{"one node", 0, 0, -1}, two{"two nodes behind haproxy", 0, 0, -1};
  for (int i = 0; i < rounds; ++i) {
    // Alternating which goes first, so that neither always follows the other.
    bool fleet_first = i % 2 == 1;
    RunOnce(fleet_first ? fleet : solo, problems, i + 1, fleet_first ? two : one);
    RunOnce(fleet_first ? solo : fleet, problems, i + 1, fleet_first ? one : two);
  }
  if (one.wall_s <= 0 || two.wall_s <= 0) {
    printf("  fleet / one node: not measured\n");
    return;
  }
  double solo_rate = one.jobs / one.wall_s, fleet_rate = two.jobs / two.wall_s;
  double ratio = fleet_rate / solo_rate;
  printf("  %-42s %6.2f jobs/s  passed at worst %d/%zu per round\n", "one node, all rounds",
         solo_rate, one.worst_passed, problems.size());
  printf("  %-42s %6.2f jobs/s  passed at worst %d/%zu per round\n", "two nodes, all rounds",
         fleet_rate, two.worst_passed, problems.size());
  bool all_passed = one.worst_passed == static_cast<int>(problems.size()) &&
                    two.worst_passed == static_cast<int>(problems.size());
  printf("  two nodes / one node: %.3fx throughput, %s: %s (at least %.2fx, all passing)\n", ratio,
         all_passed ? "all passed" : "NOT ALL PASSED",
         ratio >= kMinFleetOverSolo && all_passed ? "ok" : "REGRESSION", kMinFleetOverSolo);
}

}  // namespace bench
