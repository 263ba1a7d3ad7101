#include "coderunner/jobs/tenant_fair_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace coderunner::jobs {
namespace {

// One step of a script run against a queue with bounds (2 pending, 1 in
// flight per tenant): push an item, pop (expecting "tenant:item" or "" for
// nothing), or finish a tenant's item.
struct Step {
  enum Kind { kPush, kPop, kDone } kind;
  std::string tenant;
  std::string item;      // kPush: the item; kPop: expected "tenant:item" or "".
  bool accepted = true;  // kPush: whether Push returns true.
};

Step Push(std::string tenant, std::string item, bool accepted = true) {
  return {Step::kPush, std::move(tenant), std::move(item), accepted};
}
Step Pop(std::string expected) { return {Step::kPop, "", std::move(expected)}; }
Step Done(std::string tenant) { return {Step::kDone, std::move(tenant), ""}; }

TEST(TenantFairQueueTest, Scripts) {
  struct Case {
    const char* name;
    std::vector<Step> steps;
  };
  const std::vector<Case> cases = {
      {"empty queue gives nothing", {Pop("")}},
      {"one tenant is FIFO within its in-flight bound",
       {Push("a", "1"), Push("a", "2"), Pop("a:1"), Pop(""), Done("a"), Pop("a:2")}},
      {"tenants are served round-robin whoever pushed first",
       {Push("a", "1"), Push("a", "2"), Push("b", "1"), Push("b", "2"), Pop("a:1"), Done("a"),
        Pop("b:1"), Done("b"), Pop("a:2"), Done("a"), Pop("b:2")}},
      {"a tenant whose item hangs does not hold back another",
       {Push("a", "1"), Push("a", "2"), Pop("a:1"), Push("b", "1"), Pop("b:1"), Push("c", "1"),
        Pop("c:1"), Pop("")}},
      {"the per-tenant bound refuses only that tenant",
       {Push("a", "1"), Push("a", "2"), Push("a", "3", false), Push("b", "1"), Pop("a:1"),
        Push("a", "3"), Push("a", "4", false)}},
      {"done for a tenant with nothing in flight is ignored",
       {Done("x"), Push("a", "1"), Pop("a:1"), Done("a"), Done("a"), Push("a", "2"), Pop("a:2"),
        Pop("")}},
      {"rotation continues after the tenant served last even when it left",
       {Push("b", "1"), Pop("b:1"), Done("b"), Push("a", "1"), Push("c", "1"), Pop("c:1"),
        Pop("a:1")}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TenantFairQueue<std::string> q(/*max_pending_per_tenant=*/2, /*max_in_flight_per_tenant=*/1);
    for (size_t i = 0; i < c.steps.size(); ++i) {
      const Step& s = c.steps[i];
      SCOPED_TRACE("step " + std::to_string(i));
      switch (s.kind) {
        case Step::kPush:
          EXPECT_EQ(q.Push(s.tenant, s.item), s.accepted);
          break;
        case Step::kPop: {
          auto got = q.Pop();
          EXPECT_EQ(got ? got->first + ":" + got->second : "", s.item);
          break;
        }
        case Step::kDone:
          q.Done(s.tenant);
          break;
      }
    }
  }
}

TEST(TenantFairQueueTest, CountsPendingAndInFlight) {
  TenantFairQueue<int> q(10, 2);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(q.Push("a", i));
  ASSERT_TRUE(q.Push("b", 9));
  EXPECT_EQ(q.pending(), 4u);
  EXPECT_EQ(q.pending("a"), 3u);
  EXPECT_EQ(q.pending("nobody"), 0u);
  ASSERT_TRUE(q.Pop());
  ASSERT_TRUE(q.Pop());
  ASSERT_TRUE(q.Pop());
  EXPECT_EQ(q.in_flight(), 3);
  EXPECT_EQ(q.pending(), 1u);
  // a has two in flight: its third item waits although a thread is free.
  EXPECT_FALSE(q.Pop());
  q.Done("a");
  auto next = q.Pop();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->first, "a");
  q.Done("a");
  q.Done("a");
  q.Done("b");
  EXPECT_EQ(q.in_flight(), 0);
  EXPECT_EQ(q.pending(), 0u);
}

TEST(TenantFairQueueTest, BoundsBelowOneActAsOne) {
  TenantFairQueue<int> q(0, 0);
  EXPECT_TRUE(q.Push("a", 1));
  EXPECT_FALSE(q.Push("a", 2));
  EXPECT_TRUE(q.Pop());
  EXPECT_TRUE(q.Push("a", 2));
  EXPECT_FALSE(q.Pop());
}

TEST(TenantFairQueueTest, SaturatedTenantsHaveTheirInFlightBoundWaitingOrTaken) {
  TenantFairQueue<int> q(10, 2);
  using Names = std::vector<std::string>;
  EXPECT_EQ(q.Saturated(), Names{});
  ASSERT_TRUE(q.Push("a", 1));
  ASSERT_TRUE(q.Push("b", 1));
  ASSERT_TRUE(q.Push("b", 2));
  EXPECT_EQ(q.Saturated(), Names{"b"});  // Two waiting.
  ASSERT_TRUE(q.Pop());                  // a's, now in flight.
  ASSERT_TRUE(q.Push("a", 2));
  EXPECT_EQ(q.Saturated(), (Names{"a", "b"}));  // One in flight, one waiting.
  q.Done("a");
  EXPECT_EQ(q.Saturated(), Names{"b"});
}

}  // namespace
}  // namespace coderunner::jobs
