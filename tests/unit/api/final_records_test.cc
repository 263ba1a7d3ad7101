#include "api/final_records.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace coderunner::api {
namespace {

using store::JobRecord;

// A fetch that counts its calls and returns a record of `id`.
FinalRecords::Fetch Counting(const std::string& id, std::atomic<int>* calls) {
  return [id, calls]() -> StatusOr<store::JobRecord> {
    ++*calls;
    store::JobRecord r;
    r.id = id;
    r.result_json = std::string(1 << 20, 'x');
    return r;
  };
}

TEST(FinalRecordsTest, HoldersShareOneCopyPerJobAndTenant) {
  FinalRecords finals;
  std::atomic<int> calls = 0;
  auto a = finals.Get("job-1", "acme", Counting("job-1", &calls));
  ASSERT_TRUE(a.ok());
  auto b = finals.Get("job-1", "acme", Counting("job-1", &calls));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->get(), b->get()) << "a second copy while the first is held";
  EXPECT_EQ(calls, 1);
  // Another tenant never gets this one's copy; another job neither.
  auto other_tenant = finals.Get("job-1", "globex", Counting("job-1", &calls));
  auto other_job = finals.Get("job-2", "acme", Counting("job-2", &calls));
  EXPECT_EQ(calls, 3);
  EXPECT_NE(other_tenant->get(), a->get());
  EXPECT_EQ((*other_job)->id, "job-2");
  // Dropped with its last holder: the next caller fetches again.
  a = StatusOr<std::shared_ptr<const store::JobRecord>>(nullptr);
  b = StatusOr<std::shared_ptr<const store::JobRecord>>(nullptr);
  auto again = finals.Get("job-1", "acme", Counting("job-1", &calls));
  EXPECT_EQ(calls, 4);
  EXPECT_EQ((*again)->id, "job-1");
}

TEST(FinalRecordsTest, AFailedFetchIsReturnedAndNotKept) {
  FinalRecords finals;
  int calls = 0;
  auto failing = [&]() -> StatusOr<store::JobRecord> {
    ++calls;
    return NotFoundError("job job-1 not found", "job_not_found");
  };
  auto r = finals.Get("job-1", "acme", failing);
  EXPECT_EQ(r.status().reason(), "job_not_found");
  r = finals.Get("job-1", "acme", failing);
  EXPECT_EQ(r.status().reason(), "job_not_found");
  EXPECT_EQ(calls, 2);
}

TEST(FinalRecordsTest, ConcurrentCallersWaitForOneFetch) {
  constexpr int kCallers = 5;
  FinalRecords finals;
  std::atomic<int> calls = 0;
  std::mutex mu;
  std::condition_variable cv;
  int got = 0;
  std::vector<const store::JobRecord*> seen(kCallers, nullptr);
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] {
      auto r = finals.Get("job-1", "acme", Counting("job-1", &calls));
      ASSERT_TRUE(r.ok());
      seen[i] = r->get();
      // Each holds its copy until every caller has one.
      std::unique_lock<std::mutex> lock(mu);
      ++got;
      cv.notify_all();
      cv.wait(lock, [&] { return got == kCallers; });
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(calls, 1);
  for (const store::JobRecord* p : seen) EXPECT_EQ(p, seen[0]);
}

}  // namespace
}  // namespace coderunner::api
