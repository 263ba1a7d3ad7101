// service_bench's "fleet" section (issue 19, "no coordination tax"):
// HumanEval's throughput through two coderunner nodes behind a balancer
// against one node alone, both measured in the same run on the same machine.
#ifndef CODERUNNER_BENCH_FLEET_BENCH_H_
#define CODERUNNER_BENCH_FLEET_BENCH_H_

#include <httplib.h>

#include <string>
#include <vector>

#include "humaneval.h"

namespace bench {

// `rounds` interleaved rounds (the first of each round alternating) of every
// HumanEval problem submitted at once (RunHumanEval) through `solo` (one node)
// and through `fleet` (the balancer in front of the fleet's nodes; its total
// worker count should equal the solo node's). A few unmeasured print(1+1)
// jobs on each come first, and the warm pools get a pause between runs.
// `fleet_label` names the fleet in the output (e.g. its database layout).
// Prints each run's wall time, jobs/s and passed count, then each side's
// jobs/s over all its rounds (jobs / summed wall time), the fleet/solo ratio
// and one summary line against the bound (at least 0.95x, with every
// problem passing in every round). Both clients need a read timeout above
// 300 s. Not thread-safe on the clients.
void FleetThroughput(httplib::Client& solo, httplib::Client& fleet,
                     const std::vector<Problem>& problems, int rounds,
                     const std::string& fleet_label);

}  // namespace bench

#endif  // CODERUNNER_BENCH_FLEET_BENCH_H_
