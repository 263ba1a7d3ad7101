// The WebhookOutbox contract (webhook_outbox.h) over every job store that
// implements it: which moves write a row (and with which URL), one lease at
// a time, lease expiry, the owner fence of the reports, retry and give-up.
// Runs over every ContractBackends() backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/store/webhook_outbox.h"
#include "job_store_contract.h"

namespace coderunner::store {
namespace {

constexpr const char* kUrl = "https://hooks.example/done?token=secret";
constexpr const char* kResult = R"json({"status":"succeeded"})json";
constexpr const char* kInterrupted = R"json({"status":"error","error":"interrupted"})json";

class WebhookOutboxContractTest : public JobStoreContractFixture {
 protected:
  // The WebhookOutbox of `store` (default store_); both job stores keep one.
  WebhookOutbox& Outbox(JobStore* store = nullptr) {
    WebhookOutbox* outbox = Parts(store).outbox;
    EXPECT_NE(outbox, nullptr) << GetParam().name << " keeps no WebhookOutbox";
    return *outbox;
  }
  std::vector<WebhookDelivery> MustList() {
    auto rows = Outbox().ListDeliveries();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<WebhookDelivery>{};
  }
  std::vector<std::string> MustClaim(const std::string& node, int max, int64_t now_ms,
                                     int64_t lease_ms, JobStore* store = nullptr) {
    auto claimed = Outbox(store).ClaimDeliveries(node, max, now_ms, lease_ms);
    EXPECT_TRUE(claimed.ok()) << claimed.status().ToString();
    std::vector<std::string> ids;
    if (!claimed.ok()) return ids;
    for (const WebhookDelivery& d : *claimed) {
      EXPECT_EQ(d.owner, node);
      EXPECT_EQ(d.lease_until_ms, now_ms + lease_ms);
      ids.push_back(d.job_id);
    }
    return ids;
  }
  // A queued job with a callback, inserted.
  void InsertWithCallback(const std::string& id, int64_t created_at_ms,
                          const std::string& tenant = "default") {
    JobRecord job = MakeJob(id, created_at_ms, tenant);
    job.callback_url = kUrl;
    Insert({job});
  }
  // A job of `tenant` with a callback, finished (succeeded) at `at_ms`.
  void Finished(const std::string& id, int64_t at_ms, const std::string& tenant = "default") {
    InsertWithCallback(id, at_ms - 10, tenant);
    Status s = store_->Transition(id, JobStatus::kSucceeded, at_ms, kResult);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, WebhookOutboxContractTest,
                         ::testing::ValuesIn(ContractBackends()), BackendName);

using Ids = std::vector<std::string>;

Ids JobIdsOf(const std::vector<WebhookDelivery>& rows) {
  Ids ids;
  for (const WebhookDelivery& d : rows) ids.push_back(d.job_id);
  return ids;
}

TEST_P(WebhookOutboxContractTest, EveryTerminalMoveOfAJobWithACallbackOwesOneDelivery) {
  // A redactor that drops the callback: the outbox keeps the URL as it was.
  OpenFresh([](std::string& request, std::string& callback) {
    request = "{}";
    callback.clear();
  });
  int64_t at = 1000;
  size_t owed = 0;
  for (JobStatus to : kTerminalStatuses) {
    std::string id = "job-" + std::string(JobStatusName(to));
    SCOPED_TRACE(id);
    InsertWithCallback(id, at, "tenant-x");
    MoveTo(id, JobStatus::kRunning, at + 1);
    EXPECT_EQ(MustList().size(), owed) << "no row before the terminal move";
    Status s = store_->Transition(id, to, at + 2, kResult);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(MustGet(id).callback_url, "");  // The job's own copy is redacted.
    EXPECT_EQ(MustList().size(), ++owed);
    at += 100;
  }
  std::vector<WebhookDelivery> rows = MustList();
  ASSERT_EQ(rows.size(), std::size(kTerminalStatuses));
  for (const WebhookDelivery& d : rows) {
    SCOPED_TRACE(d.job_id);
    EXPECT_EQ(d.tenant, "tenant-x");
    EXPECT_EQ(d.url, kUrl);
    EXPECT_EQ(d.attempts, 0);
    EXPECT_EQ(d.owner, "");
    EXPECT_EQ(d.lease_until_ms, 0);
    EXPECT_EQ(d.last_error, "");
    EXPECT_EQ(d.next_at_ms, d.created_ms);  // Due at once.
    EXPECT_EQ(d.created_ms, MustGet(d.job_id).finished_at_ms);
  }
}

TEST_P(WebhookOutboxContractTest, OnlyTerminalMovesOfJobsWithACallbackWriteARow) {
  struct Case {
    const char* name;
    bool callback;
    bool inserted_terminal;  // A cache hit: inserted already succeeded.
    std::vector<JobStatus> moves;
    size_t rows;
  };
  const Case cases[] = {
      {"queued, no move", true, false, {}, 0},
      {"running", true, false, {JobStatus::kRunning}, 0},
      {"requeued", true, false, {JobStatus::kRunning, JobStatus::kQueued}, 0},
      {"no callback, finished", false, false, {JobStatus::kRunning, JobStatus::kSucceeded}, 0},
      {"finished", true, false, {JobStatus::kRunning, JobStatus::kFailed}, 1},
      {"cancelled while queued", true, false, {JobStatus::kCancelled}, 1},
      {"cache hit", true, true, {}, 1},
      {"cache hit, no callback", false, true, {}, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    OpenFresh(nullptr);
    JobRecord job = MakeJob("job-1", 100);
    if (c.callback) job.callback_url = kUrl;
    if (c.inserted_terminal) {
      job.status = JobStatus::kSucceeded;
      job.finished_at_ms = 100;
      job.result_json = kResult;
      job.transitions.push_back({JobStatus::kSucceeded, 100});
    }
    Insert({job});
    int64_t at = 200;
    for (JobStatus to : c.moves) MoveTo("job-1", to, at++);
    EXPECT_EQ(MustList().size(), c.rows);
  }
}

TEST_P(WebhookOutboxContractTest, ARefusedSecondTerminalMoveWritesNoSecondRow) {
  Finished("job-1", 1000);
  Status again = store_->Transition("job-1", JobStatus::kCancelled, 2000);
  EXPECT_EQ(again.reason(), kReasonJobTerminal);
  std::vector<WebhookDelivery> rows = MustList();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].created_ms, 1000);
}

TEST_P(WebhookOutboxContractTest, AnExpiredLeaseEndingAJobOwesItsDelivery) {
  InsertWithCallback("job-1", 100);
  auto claimed = store_->Claim("node-a", 1, 1000, 500);
  ASSERT_TRUE(claimed.ok() && claimed->size() == 1u);
  auto expired = store_->RequeueExpired(2000, /*max_attempts=*/1, kInterrupted);
  ASSERT_TRUE(expired.ok()) << expired.status().ToString();
  EXPECT_EQ(expired->ended, (Ids{"job-1"}));
  EXPECT_EQ(JobIdsOf(MustList()), (Ids{"job-1"}));
}

TEST_P(WebhookOutboxContractTest, OneLeaseAtATimeUntilItExpires) {
  Finished("job-a", 1000);
  Finished("job-b", 1100);
  Finished("job-c", 5000);  // Not due before 5000.
  EXPECT_EQ(MustClaim("node-a", 64, 2000, 500), (Ids{"job-a", "job-b"}));
  EXPECT_EQ(MustClaim("node-b", 64, 2000, 500), Ids{});
  EXPECT_EQ(MustClaim("node-b", 64, 2500, 500), Ids{});  // The lease holds at its end.
  EXPECT_EQ(MustClaim("node-b", 1, 2501, 5000), (Ids{"job-a"}));
  EXPECT_EQ(MustClaim("node-b", 64, 5000, 500), (Ids{"job-b", "job-c"}));
  for (const WebhookDelivery& d : MustList()) EXPECT_EQ(d.owner, "node-b");
}

TEST_P(WebhookOutboxContractTest, ReportsAreFencedByTheOwner) {
  Finished("job-1", 1000);
  ASSERT_EQ(MustClaim("node-a", 1, 2000, 500), (Ids{"job-1"}));
  ASSERT_EQ(MustClaim("node-b", 1, 3000, 500), (Ids{"job-1"}));  // node-a's lease expired.
  struct Case {
    const char* name;
    Status status;
  };
  const Case stale[] = {
      {"delivered", Outbox().Delivered("job-1", "node-a")},
      {"retry", Outbox().Retry("job-1", "node-a", 9000, "HTTP status 500")},
      {"give up", Outbox().GiveUp("job-1", "node-a")},
      {"unknown job", Outbox().Delivered("job-2", "node-b")},
  };
  for (const Case& c : stale) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.status.code(), StatusCode::kFailedPrecondition) << c.status.ToString();
    EXPECT_EQ(c.status.reason(), kReasonDeliveryLost);
  }
  std::vector<WebhookDelivery> rows = MustList();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].owner, "node-b");
  EXPECT_EQ(rows[0].attempts, 0);
  Status done = Outbox().Delivered("job-1", "node-b");
  ASSERT_TRUE(done.ok()) << done.ToString();
  EXPECT_TRUE(MustList().empty());
}

TEST_P(WebhookOutboxContractTest, RetryCountsReleasesAndDelaysThenGiveUpRemoves) {
  Finished("job-1", 1000);
  ASSERT_EQ(MustClaim("node-a", 1, 2000, 60000), (Ids{"job-1"}));
  const std::string long_error(5000, 'e');
  ASSERT_TRUE(Outbox().Retry("job-1", "node-a", 4000, "HTTP status 503").ok());
  std::vector<WebhookDelivery> rows = MustList();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].attempts, 1);
  EXPECT_EQ(rows[0].next_at_ms, 4000);
  EXPECT_EQ(rows[0].owner, "");
  EXPECT_EQ(rows[0].lease_until_ms, 0);
  EXPECT_EQ(rows[0].last_error, "HTTP status 503");
  EXPECT_EQ(MustClaim("node-b", 1, 3999, 500), Ids{});  // Not due yet.
  ASSERT_EQ(MustClaim("node-b", 1, 4000, 500), (Ids{"job-1"}));
  ASSERT_TRUE(Outbox().Retry("job-1", "node-b", 5000, long_error).ok());
  rows = MustList();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].attempts, 2);
  EXPECT_EQ(rows[0].last_error.size(), 1024u);
  ASSERT_EQ(MustClaim("node-a", 1, 5000, 500), (Ids{"job-1"}));
  ASSERT_TRUE(Outbox().GiveUp("job-1", "node-a").ok());
  EXPECT_TRUE(MustList().empty());
  EXPECT_EQ(MustGet("job-1").status, JobStatus::kSucceeded);  // The job stays.
}

TEST_P(WebhookOutboxContractTest, ClaimsAreFairBetweenTenantsAndSkipTheOnesAsked) {
  // acme's flood is older than globex's and initech's single rows.
  for (int i = 0; i < 5; ++i) Finished("job-a" + std::to_string(i), 1000 + i, "acme");
  Finished("job-g0", 2000, "globex");
  Finished("job-g1", 2001, "globex");
  Finished("job-i0", 3000, "initech");
  struct Case {
    const char* name;
    int max;
    int per_tenant;
    std::vector<std::string> skip;
    Ids want;
  };
  const Case cases[] = {
      {"one of each, earliest first", 3, 1, {}, {"job-a0", "job-g0", "job-i0"}},
      {"round-robin by rank", 5, 2, {}, {"job-a0", "job-g0", "job-i0", "job-a1", "job-g1"}},
      {"cut by max", 2, 64, {}, {"job-a0", "job-g0"}},
      {"acme skipped", 64, 64, {"acme"}, {"job-g0", "job-i0", "job-g1"}},
      {"all skipped", 64, 64, {"acme", "globex", "initech"}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto claimed = Outbox().ClaimDeliveries("node-a", c.max, 5000, 100, c.per_tenant, c.skip);
    ASSERT_TRUE(claimed.ok()) << claimed.status().ToString();
    EXPECT_EQ(JobIdsOf(*claimed), c.want);
    // Released (due as before) for the next case.
    for (const WebhookDelivery& d : *claimed) {
      ASSERT_TRUE(Outbox().Retry(d.job_id, "node-a", d.next_at_ms, "").ok());
    }
  }
}

TEST_P(WebhookOutboxContractTest, ReleaseFreesOnlyThatNodesLeases) {
  Finished("job-a", 1000);
  Finished("job-b", 1001);
  Finished("job-c", 1002);
  ASSERT_EQ(MustClaim("node-a", 2, 2000, 60000), (Ids{"job-a", "job-b"}));
  ASSERT_EQ(MustClaim("node-b", 1, 2000, 60000), (Ids{"job-c"}));
  auto released = Outbox().ReleaseDeliveries("node-a");
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_EQ(*released, 2);
  // Due again at once, for anyone; node-b's lease holds.
  EXPECT_EQ(MustClaim("node-c", 64, 2001, 60000), (Ids{"job-a", "job-b"}));
  released = Outbox().ReleaseDeliveries("node-z");
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(*released, 0);
}

TEST_P(WebhookOutboxContractTest, ClaimRejectsArgumentsOutOfRange) {
  struct Case {
    const char* name;
    const char* node;
    int max;
    int64_t lease_ms;
    int per_tenant = 1;
  };
  const Case cases[] = {
      {"no node", "", 1, 1000},
      {"max 0", "node-a", 0, 1000},
      {"max 65", "node-a", kMaxClaimDeliveries + 1, 1000},
      {"per tenant 0", "node-a", 1, 1000, 0},
      {"per tenant 65", "node-a", 1, 1000, kMaxClaimDeliveries + 1},
      {"lease 0", "node-a", 1, 0},
      {"lease past a day", "node-a", 1, kMaxDeliveryLeaseMs + 1},
  };
  Finished("job-1", 1000);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto claimed = Outbox().ClaimDeliveries(c.node, c.max, 2000, c.lease_ms, c.per_tenant);
    EXPECT_EQ(claimed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(claimed.status().reason(), kReasonInvalidDeliveryClaim);
  }
  EXPECT_EQ(MustList()[0].owner, "");  // Nothing was leased.
}

TEST_P(WebhookOutboxContractTest, ConcurrentClaimersOnTwoStoresTakeEachRowOnce) {
  if (!CanReopen()) GTEST_SKIP() << GetParam().name << " cannot reopen";
  constexpr int kJobs = 40;
  for (int i = 0; i < kJobs; ++i) Finished("job-" + std::to_string(100 + i), 1000 + i);
  auto other = OpenAgain();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  std::mutex mu;
  std::vector<std::string> taken;
  auto claimer = [&](JobStore* store, const std::string& node) {
    for (int round = 0; round < kJobs; ++round) {
      auto claimed = Outbox(store).ClaimDeliveries(node, 3, 5000, 60000);
      ASSERT_TRUE(claimed.ok()) << claimed.status().ToString();
      std::lock_guard<std::mutex> lock(mu);
      for (const WebhookDelivery& d : *claimed) taken.push_back(d.job_id);
    }
  };
  std::thread a(claimer, store_.get(), "node-a");
  std::thread b(claimer, other->get(), "node-b");
  a.join();
  b.join();
  EXPECT_EQ(taken.size(), static_cast<size_t>(kJobs));
  EXPECT_EQ(std::set<std::string>(taken.begin(), taken.end()).size(), static_cast<size_t>(kJobs));
  other->reset();
}

}  // namespace
}  // namespace coderunner::store
