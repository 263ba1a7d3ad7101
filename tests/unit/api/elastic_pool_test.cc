// ElasticPool: tasks that block do not hold back the next one (a thread
// starts for it, up to the bound), threads beyond the base end once idle,
// and shutdown runs what is queued.
#include "api/elastic_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "unit/gate.h"

namespace coderunner::api {
namespace {

using namespace std::chrono_literals;

// Tasks that block until the test opens it.
using Latch = testutil::Gate;

template <typename Pred>
bool Eventually(Pred pred) {
  for (int i = 0; i < 3000 && !pred(); ++i) std::this_thread::sleep_for(1ms);
  return pred();
}

// Issue 30: with a fixed pool, the 33rd of 32 blocked requests waited for
// one of them to end. Here 200 blocked tasks each get a thread, and one
// more still runs at once.
TEST(ElasticPoolTest, BlockedTasksNeverHoldBackTheNextOne) {
  ElasticPool pool(4, 1000, 1h);
  Latch latch;
  std::atomic<int> started{0};
  for (int i = 0; i < 200; ++i) {
    pool.enqueue([&] {
      ++started;
      latch.Pass();
    });
  }
  ASSERT_TRUE(Eventually([&] { return started == 200; }));
  std::atomic<bool> ran{false};
  pool.enqueue([&] { ran = true; });
  EXPECT_TRUE(Eventually([&] { return ran.load(); }));
  EXPECT_GE(pool.GetStats().peak, 201u);
  latch.Open();
  pool.shutdown();
}

TEST(ElasticPoolTest, BeyondItsBoundTasksQueueForAThread) {
  ElasticPool pool(1, 2, 1h);
  Latch latch;
  std::atomic<int> started{0};
  for (int i = 0; i < 5; ++i) {
    pool.enqueue([&] {
      ++started;
      latch.Pass();
    });
  }
  ASSERT_TRUE(Eventually([&] { return started == 2; }));
  EXPECT_EQ(pool.GetStats().threads, 2u);
  EXPECT_EQ(pool.GetStats().queued, 3u);
  latch.Open();
  EXPECT_TRUE(Eventually([&] { return started == 5; }));
  pool.shutdown();
}

TEST(ElasticPoolTest, ThreadsBeyondTheBaseEndOnceIdle) {
  ElasticPool pool(2, 64, 20ms);
  Latch latch;
  std::atomic<int> started{0};
  for (int i = 0; i < 30; ++i) {
    pool.enqueue([&] {
      ++started;
      latch.Pass();
    });
  }
  ASSERT_TRUE(Eventually([&] { return started == 30; }));
  EXPECT_GE(pool.GetStats().threads, 30u);
  latch.Open();
  EXPECT_TRUE(Eventually([&] { return pool.GetStats().threads == 2; })) << pool.GetStats().threads;
  // And it grows again.
  std::atomic<int> again{0};
  for (int i = 0; i < 10; ++i) pool.enqueue([&] { ++again; });
  EXPECT_TRUE(Eventually([&] { return again == 10; }));
  pool.shutdown();
}

TEST(ElasticPoolTest, ShutdownRunsWhatIsQueued) {
  std::atomic<int> ran{0};
  {
    ElasticPool pool(0, 1, 1h);
    for (int i = 0; i < 20; ++i) pool.enqueue([&] { ++ran; });
    pool.shutdown();
  }
  EXPECT_EQ(ran, 20);
}

}  // namespace
}  // namespace coderunner::api
