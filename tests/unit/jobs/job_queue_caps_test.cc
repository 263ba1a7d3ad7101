// Per-tenant running caps of JobQueue (the tier's max_concurrent).
#include <gtest/gtest.h>

#include <thread>

#include "coderunner/jobs/job_queue.h"

namespace coderunner::jobs {
namespace {

TEST(JobQueueCapsTest, TenantAtItsCapIsSkippedForOthers) {
  JobQueue q(100);
  for (int i = 0; i < 3; ++i) q.PushForce("flood", "f" + std::to_string(i), /*max_running=*/1);
  q.PushForce("calm", "c0", 1);
  auto a = q.PopEntry();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->tenant, "flood");
  // flood is at its cap of 1: the next job must be calm's, not flood's.
  auto b = q.PopEntry();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->id, "c0");
  q.Done("flood");
  auto c = q.PopEntry();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->id, "f1");
}

TEST(JobQueueCapsTest, DoneWakesAWorkerBlockedByTheCap) {
  JobQueue q(100);
  q.PushForce("t", "a", 1);
  q.PushForce("t", "b", 1);
  ASSERT_TRUE(q.PopEntry());
  std::optional<JobQueue::Entry> second;
  std::thread worker([&] { second = q.PopEntry(); });
  q.Done("t");
  worker.join();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->id, "b");
}

TEST(JobQueueCapsTest, TenantQueuedCountsOnlyThatTenant) {
  JobQueue q(100);
  q.PushForce("a", "1");
  q.PushForce("a", "2");
  q.PushForce("b", "3");
  EXPECT_EQ(q.TenantQueued("a"), 2u);
  EXPECT_EQ(q.TenantQueued("b"), 1u);
  EXPECT_EQ(q.TenantQueued("c"), 0u);
}

}  // namespace
}  // namespace coderunner::jobs
