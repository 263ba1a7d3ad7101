// UidPool: one uid per live container, round-robin, never a uid in use.
#include "coderunner/isolation/uid_pool.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace coderunner::isolation {
namespace {

TEST(UidPoolTest, ValidatesTheRange) {
  struct Case {
    int64_t first, count;
    bool ok;
  };
  for (const Case& c : std::vector<Case>{{kDefaultFirstJobUid, kDefaultJobUidCount, true},
                                         {1000, 1, true},
                                         {999, 10, false},  // System accounts.
                                         {0, 10, false},    // Root.
                                         {5000, 0, false},
                                         {(int64_t{1} << 31) - 2, 1, true},
                                         {(int64_t{1} << 31) - 2, 2, false},
                                         {-5, 10, false}}) {
    SCOPED_TRACE(std::to_string(c.first) + "+" + std::to_string(c.count));
    EXPECT_EQ(UidPool::Validate(c.first, c.count).ok(), c.ok);
  }
}

TEST(UidPoolTest, LeasesAreDistinctUntilExhaustedThenReused) {
  UidPool pool(5000, 4);
  std::vector<UidLease> held;
  std::set<int64_t> seen;
  for (int i = 0; i < 4; ++i) {
    auto l = pool.Lease();
    ASSERT_TRUE(l.ok());
    EXPECT_TRUE(pool.Contains(l->uid()));
    EXPECT_TRUE(seen.insert(l->uid()).second) << l->uid();
    held.push_back(std::move(*l));
  }
  auto none = pool.Lease();
  EXPECT_EQ(none.status().reason(), "uids_exhausted");
  EXPECT_EQ(pool.in_use(), 4);
  int64_t freed = held[1].uid();
  held[1].Release();
  auto again = pool.Lease();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->uid(), freed);
}

TEST(UidPoolTest, ReleasedUidsAreReusedAsLateAsPossible) {
  UidPool pool(5000, 3);
  int64_t first = 0;
  {
    auto a = pool.Lease();
    ASSERT_TRUE(a.ok());
    first = a->uid();
  }  // Released.
  auto b = pool.Lease();
  auto c = pool.Lease();
  ASSERT_TRUE(b.ok() && c.ok());
  EXPECT_NE(b->uid(), first);
  EXPECT_NE(c->uid(), first);
}

TEST(UidPoolTest, KeptLeasesAndReservationsAreNeverHandedOut) {
  UidPool pool(5000, 3);
  {
    auto a = pool.Lease();
    ASSERT_TRUE(a.ok());
    a->Keep();  // Its container could not be removed.
  }
  pool.Reserve(5002);  // A volume's uid.
  pool.Reserve(12);    // Outside the range: ignored.
  auto b = pool.Lease();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->uid(), 5001);
  EXPECT_EQ(pool.Lease().status().reason(), "uids_exhausted");
  pool.Unreserve(5002);
  auto c = pool.Lease();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->uid(), 5002);
}

TEST(UidPoolTest, ClaimTakesAnAdoptedContainersUidUntilTheLeaseEnds) {
  UidPool pool(5000, 2);
  {
    UidLease adopted = pool.Claim(5000);
    EXPECT_EQ(adopted.uid(), 5000);
    auto l = pool.Lease();
    ASSERT_TRUE(l.ok());
    EXPECT_EQ(l->uid(), 5001);
  }
  EXPECT_EQ(pool.in_use(), 0);
  UidLease legacy = pool.Claim(65534);  // Outside: nothing to give back.
  EXPECT_TRUE(legacy.empty());
}

TEST(UidPoolTest, MovedLeasesReleaseOnce) {
  UidPool pool(5000, 2);
  auto l = pool.Lease();
  ASSERT_TRUE(l.ok());
  UidLease moved = std::move(*l);
  UidLease target;
  target = std::move(moved);
  EXPECT_EQ(pool.in_use(), 1);
  target.Release();
  target.Release();
  EXPECT_EQ(pool.in_use(), 0);
}

}  // namespace
}  // namespace coderunner::isolation
