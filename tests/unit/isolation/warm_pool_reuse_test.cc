// The warm pool's container reuse (WarmPool::Keep, ReuseLot) and how its
// room follows demand: a parked container goes back only to its scope and
// shape, for a bounded time and number of jobs; a shape learned from jobs
// gets room from configured ones nobody uses.
#include <gtest/gtest.h>

#include <string>

#include "coderunner/isolation/warm_pool.h"
#include "warm_pool_fixture.h"

namespace coderunner::isolation {
namespace {

using namespace pool_testing;  // NOLINT: the fixture's engine and helpers.

JobSpec ScopedJob(const std::string& scope, const std::string& id) {
  JobSpec job = JobOf(Python(), id);
  job.reuse_scope = scope;
  return job;
}

TEST_F(WarmPoolTest, AParkedContainerGoesBackOnlyToItsScopeAndShape) {
  PoolOptions o;
  o.size = 1;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 1; }));
  const JobSpec first = ScopedJob("tenant-a", "job-1");
  auto c = pool.Take(first);
  ASSERT_NE(c, nullptr);
  const std::string id = c->id;
  pool.Keep(first, std::move(c));
  EXPECT_EQ(pool.GetStats().parked, 1);
  // Another tenant, or the same tenant's job of another shape, or a job
  // with no scope: never this container.
  JobSpec bigger = ScopedJob("tenant-a", "job-2");
  bigger.limits.memory_bytes = 512LL << 20;
  for (const JobSpec& other : {ScopedJob("tenant-b", "job-3"), bigger, JobOf(Python(), "job-4")}) {
    auto got = pool.Take(other);
    if (got) {
      EXPECT_NE(got->id, id) << other.id;
      pool.Retire(std::move(got));
    }
  }
  EXPECT_EQ(pool.GetStats().reused, 0u);
  auto again = pool.Take(ScopedJob("tenant-a", "job-5"));
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->id, id);
  EXPECT_EQ(pool.GetStats().reused, 1u);
  EXPECT_EQ(pool.GetStats().parked, 0);
  pool.Retire(std::move(again));
}

TEST_F(WarmPoolTest, AParkedContainerIsRemovedOnceItWaitedReuseIdleMs) {
  PoolOptions o;
  o.size = 1;
  o.reuse_idle_ms = 50;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 1; }));
  const JobSpec job = ScopedJob("tenant-a", "job-1");
  auto c = pool.Take(job);
  ASSERT_NE(c, nullptr);
  const std::string id = c->id;
  pool.Keep(job, std::move(c));
  ASSERT_TRUE(Eventually([&] { return engine_.Get(id).removed; }));
  EXPECT_EQ(pool.GetStats().parked, 0);
}

TEST_F(WarmPoolTest, AContainerServesAtMostReuseMaxJobs) {
  PoolOptions o;
  o.size = 1;
  o.reuse_max_jobs = 3;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 1; }));
  const JobSpec job = ScopedJob("tenant-a", "job-1");
  auto c = pool.Take(job);
  ASSERT_NE(c, nullptr);
  c->jobs_served = 3;
  const std::string id = c->id;
  pool.Keep(job, std::move(c));
  EXPECT_EQ(pool.GetStats().parked, 0);
  ASSERT_TRUE(Eventually([&] { return engine_.Get(id).removed; }));
}

TEST_F(WarmPoolTest, StoppingRemovesParkedContainers) {
  PoolOptions o;
  o.size = 1;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 1; }));
  const JobSpec job = ScopedJob("tenant-a", "job-1");
  auto c = pool.Take(job);
  ASSERT_NE(c, nullptr);
  pool.Keep(job, std::move(c));
  pool.Stop();
  EXPECT_EQ(engine_.Live(), 0);
}

// More configured shapes than max_shapes, every slot of max_containers
// taken by them: a shape a job asks for is still learned, and gets the
// room of an idle container of a shape unused since.
TEST_F(WarmPoolTest, ALearnedShapeGetsTheRoomOfAShapeNobodyUses) {
  PoolOptions o;
  o.size = 1;
  o.max_containers = 2;
  o.max_shapes = 1;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python()), JobOf(Bash())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 2; }));
  JobSpec big = JobOf(Python(), "job-big");
  big.limits.memory_bytes = 512LL << 20;
  EXPECT_EQ(pool.Take(big), nullptr);  // Learned.
  ASSERT_TRUE(Eventually([&] { return pool.GetStats().shapes == 3; }));
  std::unique_ptr<PooledContainer> got;
  ASSERT_TRUE(Eventually([&] { return (got = pool.Take(big)) != nullptr; }));
  EXPECT_EQ(engine_.Get(got->id).create["HostConfig"]["Memory"], 512LL << 20);
  EXPECT_LE(engine_.Live(), 3);  // The two slots, and the one handed out.
  pool.Retire(std::move(got));
}

}  // namespace
}  // namespace coderunner::isolation
