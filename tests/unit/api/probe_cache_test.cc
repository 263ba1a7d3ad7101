#include "coderunner/api/probe_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "unit/gate.h"

namespace coderunner::api {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

const ProbeAnswer kOverdue{503, "overdue"};

// A computation the test lets finish when it chooses.
using testutil::Gate;

TEST(ProbeCacheTest, ComputesOncePerPeriod) {
  struct Case {
    const char* name;
    milliseconds ttl;
    int calls;
    int computations;
  };
  for (const Case& c : std::vector<Case>{{"cached for an hour", hours(1), 50, 1},
                                         {"ttl 0 computes every time", milliseconds(0), 5, 5}}) {
    SCOPED_TRACE(c.name);
    std::atomic<int> n{0};
    ProbeCache cache(
        c.ttl, hours(1),
        [&] {
          return ProbeAnswer{503, "n=" + std::to_string(++n)};
        },
        kOverdue);
    for (int i = 0; i < c.calls; ++i) {
      ProbeAnswer a = cache.Get();
      EXPECT_EQ(a.status, 503);
      EXPECT_EQ(a.body, "n=" + std::to_string(n));
    }
    EXPECT_EQ(n, c.computations);
  }
}

TEST(ProbeCacheTest, AnExpiredAnswerIsComputedAgain) {
  std::atomic<int> n{0};
  ProbeCache cache(
      milliseconds(1), hours(1),
      [&] {
        return ProbeAnswer{200, std::to_string(++n)};
      },
      kOverdue);
  EXPECT_EQ(cache.Get().body, "1");
  std::this_thread::sleep_for(milliseconds(5));  // Past the 1 ms period.
  EXPECT_EQ(cache.Get().body, "2");
}

TEST(ProbeCacheTest, ConcurrentCallersShareOneComputation) {
  Gate gate;
  ProbeCache cache(
      hours(1), hours(1),
      [&] {
        gate.Pass();
        return ProbeAnswer{200, "ready"};
      },
      kOverdue);
  std::atomic<int> entered{0};
  std::vector<std::thread> callers;
  std::vector<std::string> bodies(16);
  for (int i = 0; i < 16; ++i) {
    callers.emplace_back([&, i] {
      ++entered;
      bodies[i] = cache.Get().body;
    });
  }
  while (entered < 16) std::this_thread::yield();
  gate.Open();
  for (auto& t : callers) t.join();
  EXPECT_EQ(cache.computations(), 1);
  for (const auto& b : bodies) EXPECT_EQ(b, "ready");
}

// Issue 30: with the engine stopped, /readyz hung for the whole stall. A
// computation that does not end within the bound is answered as overdue,
// and once overdue it holds no caller at all, nor starts another.
TEST(ProbeCacheTest, AStalledComputationIsOverdueAndHoldsNoCaller) {
  Gate gate;
  ProbeCache cache(
      hours(1), milliseconds(20),
      [&] {
        gate.Pass();
        return ProbeAnswer{200, "ready"};
      },
      kOverdue);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(cache.Get().body, "overdue");
  EXPECT_EQ(cache.computations(), 1);
  gate.Open();
  // The stalled computation's answer, once it comes, is the answer.
  ProbeAnswer a = cache.Get();
  for (int i = 0; i < 1000 && a.body == "overdue"; ++i) {
    std::this_thread::sleep_for(milliseconds(1));
    a = cache.Get();
  }
  EXPECT_EQ(a.body, "ready");
  EXPECT_EQ(cache.computations(), 1);
}

}  // namespace
}  // namespace coderunner::api
