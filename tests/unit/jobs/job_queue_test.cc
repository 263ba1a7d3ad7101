#include "coderunner/jobs/job_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace coderunner::jobs {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Generous bound, only so a broken queue fails instead of hanging the suite.
constexpr auto kHangGuard = 30s;

// Until `n` threads are blocked in `q`'s Pop. Then a wake-up is what must
// return them: none of them found a job, or the queue closed, on arrival.
bool UntilBlocked(const JobQueue& q, size_t n) {
  for (auto until = Clock::now() + kHangGuard; Clock::now() < until;) {
    if (q.blocked_pops() == n) return true;
    std::this_thread::sleep_for(1ms);
  }
  return q.blocked_pops() == n;
}

// Pops `n` ids; the queue must already hold them (Pop would block otherwise).
std::vector<std::string> PopN(JobQueue& q, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    auto id = q.Pop();
    if (!id) break;
    out.push_back(*id);
  }
  return out;
}

TEST(JobQueueTest, ReserveSucceedsUpToCapacityAndRefusesBeyondWithoutReserving) {
  struct Case {
    const char* name;
    size_t capacity;
    std::vector<size_t> reserves;
    std::vector<bool> expected;
  };
  const std::vector<Case> cases = {
      {"exact fit in one", 3, {3}, {true}},
      {"one too many", 3, {4}, {false}},
      {"piecewise to the brim", 3, {1, 2, 1}, {true, true, false}},
      {"refusal reserves nothing", 3, {2, 2, 1}, {true, false, true}},
      {"zero always fits", 0, {0, 1}, {true, false}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    JobQueue q(c.capacity);
    for (size_t i = 0; i < c.reserves.size(); ++i) {
      EXPECT_EQ(q.Reserve(c.reserves[i]), c.expected[i]) << "reserve #" << i;
    }
    EXPECT_EQ(q.size(), 0u);
    EXPECT_EQ(q.capacity(), c.capacity);
  }
}

TEST(JobQueueTest, ReleaseGivesRoomBack) {
  JobQueue q(2);
  ASSERT_TRUE(q.Reserve(2));
  EXPECT_FALSE(q.Reserve(1));
  q.Release(1);
  EXPECT_TRUE(q.Reserve(1));
  EXPECT_FALSE(q.Reserve(1));
  q.Release(2);
  EXPECT_TRUE(q.Reserve(2));
}

TEST(JobQueueTest, ReleasingMoreThanReservedDoesNotCreateExtraRoom) {
  JobQueue q(2);
  ASSERT_TRUE(q.Reserve(1));
  q.Release(5);
  EXPECT_TRUE(q.Reserve(2));
  EXPECT_FALSE(q.Reserve(1));
}

TEST(JobQueueTest, PushReservedConsumesTheReservationAndKeepsCountingAgainstCapacity) {
  JobQueue q(2);
  ASSERT_TRUE(q.Reserve(2));
  q.PushReserved("t", "job-1");
  EXPECT_EQ(q.size(), 1u);
  // One queued + one still reserved: full.
  EXPECT_FALSE(q.Reserve(1));
  q.PushReserved("t", "job-2");
  EXPECT_EQ(q.size(), 2u);
  EXPECT_FALSE(q.Reserve(1));
  // Popping frees room.
  ASSERT_EQ(q.Pop(), std::optional<std::string>("job-1"));
  EXPECT_TRUE(q.Reserve(1));
  EXPECT_FALSE(q.Reserve(1));
}

TEST(JobQueueTest, ReleaseAfterPushDoesNotFreeTheQueuedSlot) {
  JobQueue q(1);
  ASSERT_TRUE(q.Reserve(1));
  q.PushReserved("t", "job-1");
  q.Release(1);  // Nothing is reserved any more; the queued id still counts.
  EXPECT_FALSE(q.Reserve(1));
}

TEST(JobQueueTest, PushForceGoesPastCapacityAndBlocksNewReservations) {
  JobQueue q(2);
  for (int i = 0; i < 5; ++i) q.PushForce("t", "job-" + std::to_string(i));
  EXPECT_EQ(q.size(), 5u);
  EXPECT_FALSE(q.Reserve(1));
  EXPECT_EQ(PopN(q, 4).size(), 4u);
  // 1 queued of 2.
  EXPECT_TRUE(q.Reserve(1));
  EXPECT_FALSE(q.Reserve(1));
}

TEST(JobQueueTest, PushForceDoesNotConsumeReservations) {
  JobQueue q(3);
  ASSERT_TRUE(q.Reserve(2));
  q.PushForce("t", "job-1");  // 1 queued + 2 reserved = full.
  EXPECT_FALSE(q.Reserve(1));
  q.PushReserved("t", "job-2");
  q.PushReserved("t", "job-3");
  EXPECT_EQ(q.size(), 3u);
  EXPECT_FALSE(q.Reserve(1));
}

TEST(JobQueueTest, PopIsFifoWithinATenant) {
  JobQueue q(10);
  for (const char* id : {"a", "b", "c", "d"}) q.PushForce("t", id);
  EXPECT_EQ(PopN(q, 4), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(q.size(), 0u);
}

TEST(JobQueueTest, RemoveTakesOutOnlyThatIdAndReportsWhetherItWasQueued) {
  JobQueue q(10);
  q.PushForce("t1", "a");
  q.PushForce("t1", "b");
  q.PushForce("t2", "c");
  EXPECT_TRUE(q.Remove("b"));
  EXPECT_EQ(q.size(), 2u);
  EXPECT_FALSE(q.Remove("b"));
  EXPECT_FALSE(q.Remove("never-queued"));
  EXPECT_TRUE(q.Remove("c"));  // t2's only id: the tenant leaves the rotation.
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(PopN(q, 1), (std::vector<std::string>{"a"}));
  EXPECT_EQ(q.size(), 0u);
  // A tenant emptied by Remove can queue again and is served.
  q.PushForce("t2", "d");
  EXPECT_EQ(PopN(q, 1), (std::vector<std::string>{"d"}));
}

TEST(JobQueueTest, RemoveFreesCapacity) {
  JobQueue q(1);
  ASSERT_TRUE(q.Reserve(1));
  q.PushReserved("t", "a");
  EXPECT_FALSE(q.Reserve(1));
  ASSERT_TRUE(q.Remove("a"));
  EXPECT_TRUE(q.Reserve(1));
}

TEST(JobQueueTest, PopBlocksUntilAPushFromAnotherThread) {
  JobQueue q(10);
  std::atomic<bool> pushed{false};
  auto popped = std::async(std::launch::async, [&] {
    auto id = q.Pop();
    // Pop may only return after the push.
    EXPECT_TRUE(pushed.load());
    return id;
  });
  // Blocked on the empty queue before the push: the push's wake-up must
  // return it.
  ASSERT_TRUE(UntilBlocked(q, 1));
  pushed = true;
  q.PushForce("t", "job-1");
  if (popped.wait_for(kHangGuard) != std::future_status::ready) {
    ADD_FAILURE() << "Pop was not woken by the push";
    q.Close(/*drop_pending=*/false);  // Wakes it another way, so that the test ends.
  }
  EXPECT_EQ(popped.get(), std::optional<std::string>("job-1"));
  EXPECT_EQ(q.blocked_pops(), 0u);
}

TEST(JobQueueTest, RoundRobinLetsASmallTenantThroughAFlood) {
  JobQueue q(100);
  for (int i = 0; i < 10; ++i) q.PushForce("A", "A" + std::to_string(i));
  q.PushForce("B", "B0");
  q.PushForce("B", "B1");
  std::vector<std::string> first4 = PopN(q, 4);
  ASSERT_EQ(first4.size(), 4u);
  int b_seen = 0;
  for (const auto& id : first4) b_seen += id[0] == 'B';
  EXPECT_EQ(b_seen, 2) << ::testing::PrintToString(first4);
  // Everything else still comes out, each tenant in its own FIFO order.
  std::vector<std::string> rest = PopN(q, 8);
  std::vector<std::string> all = first4;
  all.insert(all.end(), rest.begin(), rest.end());
  ASSERT_EQ(all.size(), 12u);
  std::vector<std::string> a_order, b_order;
  for (const auto& id : all) (id[0] == 'A' ? a_order : b_order).push_back(id);
  EXPECT_EQ(b_order, (std::vector<std::string>{"B0", "B1"}));
  ASSERT_EQ(a_order.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a_order[i], "A" + std::to_string(i));
}

TEST(JobQueueTest, RoundRobinAlternatesBetweenThreeTenants) {
  JobQueue q(100);
  for (const char* t : {"x", "y", "z"}) {
    for (int i = 0; i < 2; ++i) q.PushForce(t, std::string(t) + std::to_string(i));
  }
  EXPECT_EQ(PopN(q, 6), (std::vector<std::string>{"x0", "y0", "z0", "x1", "y1", "z1"}));
}

TEST(JobQueueTest, CloseWithDropPendingWakesEveryBlockedPopWithNullopt) {
  JobQueue q(10);
  constexpr size_t kPoppers = 4;
  EXPECT_EQ(q.blocked_pops(), 0u);
  std::vector<std::future<std::optional<std::string>>> pops;
  for (size_t i = 0; i < kPoppers; ++i) {
    pops.push_back(std::async(std::launch::async, [&] { return q.Pop(); }));
  }
  // Every one blocked before Close: only Close's wake-up can return them
  // (none takes the closed-and-empty path on arrival).
  EXPECT_TRUE(UntilBlocked(q, kPoppers)) << q.blocked_pops() << " of " << kPoppers << " blocked";
  q.Close(/*drop_pending=*/true);
  size_t woken = 0;
  const auto until = Clock::now() + kHangGuard;
  for (auto& f : pops) woken += f.wait_until(until) == std::future_status::ready;
  if (woken < kPoppers) {
    ADD_FAILURE() << "Close woke " << woken << " of " << kPoppers << " blocked Pops";
    // Wake the rest another way, so that their futures can be destroyed.
    for (size_t i = woken; i < kPoppers; ++i) q.PushForce("t", "unblock");
    return;
  }
  for (auto& f : pops) EXPECT_EQ(f.get(), std::nullopt);
  EXPECT_EQ(q.blocked_pops(), 0u);
}

TEST(JobQueueTest, CloseWithDropPendingDiscardsQueuedIdsAndReturnsThem) {
  JobQueue q(10);
  q.PushForce("t", "a");
  q.PushForce("u", "b");
  q.PushForce("t", "c");
  std::vector<std::string> dropped = q.Close(/*drop_pending=*/true);
  std::sort(dropped.begin(), dropped.end());
  EXPECT_EQ(dropped, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.Pop(), std::nullopt);
}

TEST(JobQueueTest, CloseWithoutDropDrainsPendingThenReturnsNullopt) {
  JobQueue q(10);
  q.PushForce("t", "a");
  q.PushForce("t", "b");
  EXPECT_TRUE(q.Close(/*drop_pending=*/false).empty());
  EXPECT_EQ(q.Pop(), std::optional<std::string>("a"));
  EXPECT_EQ(q.Pop(), std::optional<std::string>("b"));
  EXPECT_EQ(q.Pop(), std::nullopt);
  EXPECT_EQ(q.Pop(), std::nullopt);
}

TEST(JobQueueTest, ConcurrentPushersAndPoppersDeliverEveryIdExactlyOnce) {
  JobQueue q(1000);
  constexpr int kTenants = 4;
  constexpr int kPerTenant = 100;
  std::vector<std::thread> pushers;
  for (int t = 0; t < kTenants; ++t) {
    pushers.emplace_back([&q, t] {
      for (int i = 0; i < kPerTenant; ++i) {
        ASSERT_TRUE(q.Reserve(1));
        q.PushReserved("t" + std::to_string(t), std::to_string(t * kPerTenant + i));
      }
    });
  }
  std::vector<std::future<std::vector<int>>> poppers;
  for (int p = 0; p < 3; ++p) {
    poppers.push_back(std::async(std::launch::async, [&q] {
      std::vector<int> got;
      while (auto id = q.Pop()) got.push_back(std::stoi(*id));
      return got;
    }));
  }
  for (auto& t : pushers) t.join();
  q.Close(/*drop_pending=*/false);
  std::vector<int> seen(kTenants * kPerTenant, 0);
  for (auto& f : poppers) {
    ASSERT_EQ(f.wait_for(kHangGuard), std::future_status::ready);
    for (int id : f.get()) ++seen[id];
  }
  for (int i = 0; i < kTenants * kPerTenant; ++i) EXPECT_EQ(seen[i], 1) << "id " << i;
  EXPECT_EQ(q.size(), 0u);
}

}  // namespace
}  // namespace coderunner::jobs
