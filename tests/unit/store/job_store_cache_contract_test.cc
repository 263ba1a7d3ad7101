// The JobStore contract (job_store.h): the result cache. Runs over every
// ContractBackends() backend.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "job_store_contract.h"

namespace coderunner::store {
namespace {

class JobStoreCacheContractTest : public JobStoreContractFixture {};

INSTANTIATE_TEST_SUITE_P(Backends, JobStoreCacheContractTest,
                         ::testing::ValuesIn(ContractBackends()), BackendName);

// --- Result cache ----------------------------------------------------------------

TEST_P(JobStoreCacheContractTest, CacheGetOfMissingKeyIsEmpty) {
  auto got = store_->CacheGet("nope", 0);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
}

TEST_P(JobStoreCacheContractTest, CachePutThenGetHonoursExpiry) {
  ASSERT_TRUE(store_->CachePut("k", R"({"v":1})", 1000).ok());
  struct Case {
    int64_t now_ms;
    bool hit;
  };
  for (const Case& c : std::vector<Case>{{0, true}, {999, true}, {1000, false}, {5000, false}}) {
    SCOPED_TRACE(c.now_ms);
    auto got = store_->CacheGet("k", c.now_ms);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->has_value(), c.hit);
    if (c.hit) {
      EXPECT_EQ(**got, R"({"v":1})");
    }
  }
}

TEST_P(JobStoreCacheContractTest, CachePutReplacesValueAndExpiry) {
  ASSERT_TRUE(store_->CachePut("k", "old", 1000).ok());
  ASSERT_TRUE(store_->CachePut("k", "new", 3000).ok());
  auto got = store_->CacheGet("k", 2000);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value_or("<none>"), "new");
}

TEST_P(JobStoreCacheContractTest, CachePurgeExpiredDeletesOnlyExpiredAndCountsThem) {
  ASSERT_TRUE(store_->CachePut("a", "1", 100).ok());
  ASSERT_TRUE(store_->CachePut("b", "2", 200).ok());
  ASSERT_TRUE(store_->CachePut("c", "3", 300).ok());
  auto purged = store_->CachePurgeExpired(200);
  ASSERT_TRUE(purged.ok());
  EXPECT_EQ(*purged, 2);
  EXPECT_EQ(store_->CachePurgeExpired(200).value(), 0);
  // Only "c" is left: unexpired, and the one row a later purge finds.
  EXPECT_EQ(store_->CacheGet("c", 250).value().value_or("<none>"), "3");
  EXPECT_EQ(store_->CachePurgeExpired(1000).value(), 1);
  EXPECT_FALSE(store_->CacheGet("c", 0).value().has_value());
}

}  // namespace
}  // namespace coderunner::store
