#include "coderunner/api/probe_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace coderunner::api {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

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
    ProbeCache cache(c.ttl);
    int n = 0;
    for (int i = 0; i < c.calls; ++i) {
      ProbeAnswer a = cache.Get([&] { return ProbeAnswer{503, "n=" + std::to_string(++n)}; });
      EXPECT_EQ(a.status, 503);
    }
    EXPECT_EQ(n, c.computations);
  }
}

TEST(ProbeCacheTest, AnExpiredAnswerIsComputedAgain) {
  ProbeCache cache(milliseconds(1));
  int n = 0;
  auto compute = [&] { return ProbeAnswer{200, std::to_string(++n)}; };
  EXPECT_EQ(cache.Get(compute).body, "1");
  std::this_thread::sleep_for(milliseconds(5));  // Past the 1 ms period.
  EXPECT_EQ(cache.Get(compute).body, "2");
}

TEST(ProbeCacheTest, ConcurrentCallersShareOneComputation) {
  ProbeCache cache(hours(1));
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> computations{0};
  std::atomic<int> entered{0};
  auto compute = [&] {
    ++computations;
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return release; });
    return ProbeAnswer{200, "ready"};
  };
  std::vector<std::thread> callers;
  std::vector<std::string> bodies(16);
  for (int i = 0; i < 16; ++i) {
    callers.emplace_back([&, i] {
      ++entered;
      bodies[i] = cache.Get(compute).body;
    });
  }
  while (entered < 16) std::this_thread::yield();
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  for (auto& t : callers) t.join();
  EXPECT_EQ(computations, 1);
  for (const auto& b : bodies) EXPECT_EQ(b, "ready");
}

}  // namespace
}  // namespace coderunner::api
