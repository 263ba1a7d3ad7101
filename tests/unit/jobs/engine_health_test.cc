#include "coderunner/jobs/engine_health.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::jobs {
namespace {

using Clock = EngineHealth::Clock;
using std::chrono::milliseconds;

TEST(EngineHealthTest, DownOnlyWhileAFreshFailureStands) {
  const Clock::time_point t0 = Clock::now();
  struct Event {
    bool reached;
    int at_ms;
  };
  struct Case {
    const char* name;
    std::vector<Event> events;
    int asked_at_ms;
    bool want_down;
  };
  const std::vector<Case> cases = {
      {"nothing known", {}, 0, false},
      {"a fresh failure", {{false, 0}}, 1000, true},
      {"a stale failure", {{false, 0}}, 6000, false},
      {"reached since", {{false, 0}, {true, 10}}, 20, false},
      {"failed again after being reached", {{false, 0}, {true, 10}, {false, 20}}, 30, true},
      {"a run that began before the failure reached it", {{false, 10}, {true, 5}}, 20, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EngineHealth health;
    for (const Event& e : c.events) {
      if (e.reached) {
        health.Reached(t0 + milliseconds(e.at_ms));
      } else {
        health.Unreachable(UnavailableError("connect: refused", "engine_unavailable"),
                           t0 + milliseconds(e.at_ms));
      }
    }
    auto down = health.DownWithin(milliseconds(5000), t0 + milliseconds(c.asked_at_ms));
    EXPECT_EQ(down.has_value(), c.want_down);
    if (down) {
      EXPECT_EQ(down->reason(), "engine_unavailable");
    }
  }
}

}  // namespace
}  // namespace coderunner::jobs
