// The JobStore contract of a tenant's footprint (job_store.h): what each
// terminal move records (Transition's artifact_bytes, the output_bytes the
// store counts), the per-tenant sums (TenantFootprint), and the purge of a
// tenant's oldest terminal jobs until they fit (PurgeBeyond), exact when
// two handles (two nodes) purge at once. Runs over every ContractBackends()
// backend.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "job_store_contract.h"

namespace coderunner::store {
namespace {

// MakeJob's request, as stored.
const int64_t kRequestBytes = static_cast<int64_t>(std::string(kRequestJson).size());

// A result of exactly `bytes` bytes (the store never parses it).
std::string ResultOf(int64_t bytes) { return std::string(static_cast<size_t>(bytes), 'r'); }

class JobStoreFootprintContractTest : public JobStoreContractFixture {
 protected:
  Footprint MustFootprint(const std::string& tenant, JobStore* store = nullptr) {
    auto got = (store != nullptr ? store : store_.get())->TenantFootprint(tenant);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : Footprint{-1, -1, -1};
  }
  // Job `id` of `tenant`, created at `finished_ms` - 10 and ended
  // succeeded at `finished_ms` with `artifacts` artifact bytes and a
  // result of `result_bytes` bytes: its output_bytes are kRequestBytes +
  // `result_bytes`.
  void Finish(const std::string& id, const std::string& tenant, int64_t finished_ms,
              int64_t artifacts, int64_t result_bytes) {
    Insert({MakeJob(id, finished_ms - 10, tenant)});
    MoveTo(id, JobStatus::kRunning, finished_ms - 5);
    Status s = store_->Transition(id, JobStatus::kSucceeded, finished_ms, ResultOf(result_bytes),
                                  "", "", artifacts);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  bool Exists(const std::string& id) { return store_->Get(id, "").ok(); }
};

INSTANTIATE_TEST_SUITE_P(Backends, JobStoreFootprintContractTest,
                         ::testing::ValuesIn(ContractBackends()), BackendName);

void ExpectFootprint(const Footprint& got, const Footprint& want) {
  EXPECT_EQ(got.artifact_bytes, want.artifact_bytes);
  EXPECT_EQ(got.output_bytes, want.output_bytes);
  EXPECT_EQ(got.jobs, want.jobs);
}

// --- What a terminal move records ---------------------------------------------

TEST_P(JobStoreFootprintContractTest, EveryTerminalMoveRecordsItsArtifactAndOutputBytes) {
  // Each path to a terminal status, for a tenant of its own.
  Finish("job-run", "run", 1000, 4096, 300);
  ExpectFootprint(MustFootprint("run"), {4096, kRequestBytes + 300, 1});

  // An intent's progress and a callback are stored too.
  JobRecord intent = MakeJob("job-intent", 100, "intent");
  intent.callback_url = "https://hooks.example/x";
  Insert({intent});
  MoveTo("job-intent", JobStatus::kRunning, 110);
  ASSERT_TRUE(store_->UpdateProgress("job-intent", ResultOf(50)).ok());
  ASSERT_TRUE(store_->Transition("job-intent", JobStatus::kFailed, 120, ResultOf(70)).ok());
  ExpectFootprint(MustFootprint("intent"),
                  {0, kRequestBytes + int64_t{23} + 50 + 70, 1});  // 23: the callback.

  // A record inserted terminal (a cache hit) keeps no artifacts of its own.
  JobRecord hit = MakeJob("job-hit", 100, "hit");
  hit.status = JobStatus::kSucceeded;
  hit.finished_at_ms = 100;
  hit.transitions.push_back({JobStatus::kSucceeded, 100});
  hit.result_json = ResultOf(900);
  Insert({hit});
  ExpectFootprint(MustFootprint("hit"), {0, kRequestBytes + 900, 1});

  // A cancel while queued, and a lease that expired past the last attempt.
  Insert({MakeJob("job-cancel", 100, "cancel")});
  ASSERT_TRUE(store_->Transition("job-cancel", JobStatus::kCancelled, 130, ResultOf(40)).ok());
  ExpectFootprint(MustFootprint("cancel"), {0, kRequestBytes + 40, 1});
  Insert({MakeJob("job-lease", 100, "lease")});
  ASSERT_TRUE(store_->Claim("node-a", 1, 200, 10).ok());
  auto expired = store_->RequeueExpired(1000, 1, ResultOf(60));
  ASSERT_TRUE(expired.ok()) << expired.status().ToString();
  ASSERT_EQ(expired->ended, std::vector<std::string>{"job-lease"});
  ExpectFootprint(MustFootprint("lease"), {0, kRequestBytes + 60, 1});
}

TEST_P(JobStoreFootprintContractTest, OutputBytesCountTheRequestAsRedacted) {
  ASSERT_NO_FATAL_FAILURE(OpenFresh([](std::string& request, std::string& url) {
    request = "{}";
    url.clear();
  }));
  JobRecord job = MakeJob("job-1", 100);
  job.callback_url = "https://hooks.example/secret";
  Insert({job});
  ASSERT_TRUE(store_->Transition("job-1", JobStatus::kSucceeded, 200, ResultOf(10)).ok());
  ExpectFootprint(MustFootprint("default"), {0, 2 + 10, 1});
}

TEST_P(JobStoreFootprintContractTest, ArtifactBytesGoOnlyWithATerminalMoveAndNeverNegative) {
  Insert({MakeJob("job-1", 100)});
  struct Case {
    const char* name;
    JobStatus to;
    int64_t artifacts;
  };
  for (const Case& c :
       {Case{"to running", JobStatus::kRunning, 5}, Case{"to queued", JobStatus::kQueued, 5},
        Case{"negative", JobStatus::kSucceeded, -1}}) {
    SCOPED_TRACE(c.name);
    Status s = store_->Transition("job-1", c.to, 150, "", "", "", c.artifacts);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
    EXPECT_EQ(s.reason(), "invalid_transition");
    EXPECT_EQ(MustGet("job-1").status, JobStatus::kQueued);
  }
  ExpectFootprint(MustFootprint("default"), {0, 0, 0});
}

TEST_P(JobStoreFootprintContractTest, TheSumsCountOnlyTheTenantsTerminalJobs) {
  Finish("job-a1", "a", 1000, 100, 10);
  Finish("job-a2", "a", 2000, 200, 20);
  Finish("job-b1", "b", 1500, 400, 40);
  Insert({MakeJob("job-a-queued", 3000, "a"), MakeJob("job-a-running", 3000, "a")});
  MoveTo("job-a-running", JobStatus::kRunning, 3100);
  ExpectFootprint(MustFootprint("a"), {300, 2 * kRequestBytes + 30, 2});
  ExpectFootprint(MustFootprint("b"), {400, kRequestBytes + 40, 1});
  ExpectFootprint(MustFootprint("nobody"), {0, 0, 0});
  // The retention purge (by age) takes its jobs out of the sums too.
  auto purged = store_->PurgeFinishedBefore(1600);
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(purged->size(), 2u);
  ExpectFootprint(MustFootprint("a"), {200, kRequestBytes + 20, 1});
  ExpectFootprint(MustFootprint("b"), {0, 0, 0});
}

// --- PurgeBeyond -----------------------------------------------------------------

// Five terminal jobs of one tenant, oldest first; the second and third
// finished in the same millisecond (then id order decides).
struct Finished {
  const char* suffix;
  int64_t finished_ms;
  int64_t artifacts;
  int64_t result_bytes;  // output_bytes: kRequestBytes more.
};
constexpr Finished kFinished[] = {
    {"1", 1000, 10, 100}, {"2", 2000, 20, 0},   {"3", 2000, 30, 300},
    {"4", 4000, 40, 0},   {"5", 5000, 50, 100},
};
int64_t Output(int i) { return kRequestBytes + kFinished[i].result_bytes; }

struct PurgeCase {
  const char* tenant;  // Also the case's name.
  FootprintBounds bounds;
  std::vector<std::string> purged;  // Suffixes, oldest first.
};

std::vector<PurgeCase> PurgeCases() {
  const int64_t all_artifacts = 150;
  const int64_t all_output = Output(0) + Output(1) + Output(2) + Output(3) + Output(4);
  return {
      {"unbounded", {0, 0}, {}},
      {"both_fit_exactly", {all_artifacts, all_output}, {}},
      {"artifacts_one_over", {all_artifacts - 1, 0}, {"1"}},
      {"artifacts_keep_the_newest_two", {90, 0}, {"1", "2", "3"}},
      {"tie_broken_by_id", {120, 0}, {"1", "2"}},
      {"output_decides", {0, Output(4)}, {"1", "2", "3", "4"}},
      {"the_stricter_bound_wins", {120, Output(3) + Output(4)}, {"1", "2", "3"}},
      {"the_newest_alone_over_a_bound", {49, 0}, {"1", "2", "3", "4", "5"}},
  };
}

TEST_P(JobStoreFootprintContractTest, PurgeBeyondDeletesTheOldestUntilBothSumsFit) {
  const std::vector<PurgeCase> cases = PurgeCases();
  // Every case's tenant holds the same jobs, and a queued and a running
  // job older than all of them, which never go nor count.
  for (const PurgeCase& c : cases) {
    const std::string t = c.tenant;
    Insert({MakeJob(t + "-queued", 1, t), MakeJob(t + "-running", 2, t)});
    MoveTo(t + "-running", JobStatus::kRunning, 3);
    for (const Finished& f : kFinished) {
      Finish(t + "-" + f.suffix, t, f.finished_ms, f.artifacts, f.result_bytes);
    }
  }
  for (const PurgeCase& c : cases) {
    SCOPED_TRACE(c.tenant);
    const std::string t = c.tenant;
    auto purged = store_->PurgeBeyond(t, c.bounds);
    ASSERT_TRUE(purged.ok()) << purged.status().ToString();
    std::vector<std::string> want;
    for (const std::string& s : c.purged) want.push_back(t + "-" + s);
    EXPECT_EQ(*purged, want);
    for (const std::string& id : want) EXPECT_FALSE(Exists(id)) << id;
    EXPECT_TRUE(Exists(t + "-queued"));
    EXPECT_TRUE(Exists(t + "-running"));
    Footprint left = MustFootprint(t);
    EXPECT_EQ(left.jobs, 5 - static_cast<int64_t>(want.size()));
    if (c.bounds.max_artifact_bytes > 0) {
      EXPECT_LE(left.artifact_bytes, c.bounds.max_artifact_bytes);
    }
    if (c.bounds.max_output_bytes > 0) {
      EXPECT_LE(left.output_bytes, c.bounds.max_output_bytes);
    }
    // Once within its bounds, nothing more goes.
    auto again = store_->PurgeBeyond(t, c.bounds);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_TRUE(again->empty());
  }
}

TEST_P(JobStoreFootprintContractTest, ConcurrentPurgesOnTwoNodesDeleteEachJobOnce) {
  if (!CanReopen()) GTEST_SKIP() << "backend cannot reopen";
  constexpr int kJobs = 40;
  for (int i = 0; i < kJobs; ++i) {
    Finish("job-" + std::to_string(100 + i), "t", 1000 + i, 10, 0);
  }
  auto other = OpenAgain();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  // Four purgers, two per handle, each several times, all at once.
  std::mutex mu;
  std::multiset<std::string> purged;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      JobStore* store = t % 2 == 0 ? store_.get() : other->get();
      for (int round = 0; round < 3; ++round) {
        auto ids = store->PurgeBeyond("t", {100, 0});
        EXPECT_TRUE(ids.ok()) << ids.status().ToString();
        std::lock_guard<std::mutex> lock(mu);
        for (const std::string& id : ids.ok() ? *ids : std::vector<std::string>{}) {
          purged.insert(id);
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  // Exactly the 30 oldest, each returned once.
  std::multiset<std::string> want;
  for (int i = 0; i < kJobs - 10; ++i) want.insert("job-" + std::to_string(100 + i));
  EXPECT_EQ(purged, want);
  ExpectFootprint(MustFootprint("t", other->get()), {100, 10 * kRequestBytes, 10});
  other->reset();
}

}  // namespace
}  // namespace coderunner::store
