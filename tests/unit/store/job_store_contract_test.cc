// The JobStore contract (job_store.h): records, their insertion and reading, progress, redaction,
// durability. Runs over every ContractBackends() backend.
#include "job_store_contract.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace coderunner::store {
namespace {

class JobStoreContractTest : public JobStoreContractFixture {};

INSTANTIATE_TEST_SUITE_P(Backends, JobStoreContractTest, ::testing::ValuesIn(ContractBackends()),
                         BackendName);

// --- Insert and Get --------------------------------------------------------------

TEST_P(JobStoreContractTest, InsertThenGetRoundTripsEveryField) {
  JobRecord job;
  job.id = "job-0123456789abcdef01234567";
  job.tenant = "acme";
  job.status = JobStatus::kFailed;
  job.language = "cpp";
  job.request_json = R"({"code":"int main(){}","stdin":"a'b\"c; DROP TABLE jobs;--"})";
  job.code_sha256 = std::string(64, 'a');
  job.inputs_sha256 = std::string(64, 'b');
  job.cache_key = "ck-1";
  job.image = "gcc:13";
  job.image_digest = "sha256:0123";
  job.limits_json = R"({"wall_ms":5000})";
  job.callback_url = "https://example.com/hook?x=1&y=2";
  job.replay_of = "job-original";
  job.cached = true;
  job.attempt = 2;
  job.created_at_ms = 1700000000000;
  job.started_at_ms = 1700000000100;
  job.finished_at_ms = 1700000000200;
  job.transitions = {{JobStatus::kQueued, 1700000000000},
                     {JobStatus::kRunning, 1700000000100},
                     {JobStatus::kQueued, 1700000000150},
                     {JobStatus::kFailed, 1700000000200}};
  job.result_json = "{\"stdout\":\"h\\u00e9llo \xe2\x9c\x93\"}";
  Insert({job});

  auto got = store_->Get(job.id, "acme");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->id, job.id);
  EXPECT_EQ(got->tenant, job.tenant);
  EXPECT_EQ(got->status, job.status);
  EXPECT_EQ(got->language, job.language);
  EXPECT_EQ(got->request_json, job.request_json);
  EXPECT_EQ(got->code_sha256, job.code_sha256);
  EXPECT_EQ(got->inputs_sha256, job.inputs_sha256);
  EXPECT_EQ(got->cache_key, job.cache_key);
  EXPECT_EQ(got->image, job.image);
  EXPECT_EQ(got->image_digest, job.image_digest);
  EXPECT_EQ(got->limits_json, job.limits_json);
  EXPECT_EQ(got->callback_url, job.callback_url);
  EXPECT_EQ(got->replay_of, job.replay_of);
  EXPECT_EQ(got->cached, job.cached);
  EXPECT_EQ(got->attempt, job.attempt);
  EXPECT_EQ(got->created_at_ms, job.created_at_ms);
  EXPECT_EQ(got->started_at_ms, job.started_at_ms);
  EXPECT_EQ(got->finished_at_ms, job.finished_at_ms);
  ExpectSameTransitions(got->transitions, job.transitions);
  EXPECT_EQ(got->result_json, job.result_json);
}

TEST_P(JobStoreContractTest, InsertKeepsEmptyFieldsAndDefaults) {
  JobRecord job;
  job.id = "job-minimal";
  Insert({job});
  JobRecord got = MustGet("job-minimal");
  EXPECT_EQ(got.tenant, "default");
  EXPECT_EQ(got.status, JobStatus::kQueued);
  EXPECT_EQ(got.attempt, 1);
  EXPECT_FALSE(got.cached);
  EXPECT_TRUE(got.transitions.empty());
  EXPECT_EQ(got.request_json, "");
  EXPECT_EQ(got.result_json, "");
}

TEST_P(JobStoreContractTest, InsertOfEmptyBatchIsOk) { EXPECT_TRUE(store_->Insert({}).ok()); }

TEST_P(JobStoreContractTest, InsertOfJobWithoutIdIsInvalidArgument) {
  Status s = store_->Insert({MakeJob("", 1)});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST_P(JobStoreContractTest, InsertOfExistingIdIsAlreadyExistsAndInsertsNothing) {
  Insert({MakeJob("job-existing", 1)});
  struct Case {
    const char* name;
    std::vector<JobRecord> batch;
  };
  const std::vector<Case> cases = {
      {"existing id last", {MakeJob("job-new-1", 2), MakeJob("job-existing", 3)}},
      {"existing id first", {MakeJob("job-existing", 3), MakeJob("job-new-1", 2)}},
      {"duplicate within batch",
       {MakeJob("job-new-1", 2), MakeJob("job-new-2", 2), MakeJob("job-new-1", 4)}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = store_->Insert(c.batch);
    EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.ToString();
    for (const JobRecord& job : c.batch) {
      if (job.id == "job-existing") continue;
      EXPECT_EQ(store_->Get(job.id, "").status().code(), StatusCode::kNotFound) << job.id;
    }
    EXPECT_EQ(MustGet("job-existing").created_at_ms, 1);  // Not overwritten.
  }
  // The store still accepts writes afterwards.
  Insert({MakeJob("job-new-1", 2), MakeJob("job-new-2", 2)});
}

TEST_P(JobStoreContractTest, GetIsScopedByTenant) {
  Insert({MakeJob("job-acme", 1, "acme")});
  struct Case {
    std::string tenant;
    StatusCode code;
  };
  const std::vector<Case> cases = {
      {"", StatusCode::kOk},
      {"acme", StatusCode::kOk},
      {"other", StatusCode::kNotFound},
      {"default", StatusCode::kNotFound},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tenant);
    auto got = store_->Get("job-acme", c.tenant);
    EXPECT_EQ(got.status().code(), c.code);
    if (!got.ok()) {
      EXPECT_EQ(got.status().reason(), "job_not_found");
    }
  }
}

TEST_P(JobStoreContractTest, GetOfUnknownIdIsNotFound) {
  auto got = store_->Get("job-nope", "");
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(got.status().reason(), "job_not_found");
}

TEST_P(JobStoreContractTest, KindAndProgressRoundTripAndDefaultToPlainJob) {
  JobRecord intent = MakeJob("job-intent", 100);
  intent.kind = "intent";
  intent.progress_json = R"({"stages":[]})";
  Insert({intent, MakeJob("job-plain", 101)});
  EXPECT_EQ(MustGet("job-intent").kind, "intent");
  EXPECT_EQ(MustGet("job-intent").progress_json, R"({"stages":[]})");
  EXPECT_EQ(MustGet("job-plain").kind, "job");
  EXPECT_EQ(MustGet("job-plain").progress_json, "");
}

TEST_P(JobStoreContractTest, UpdateProgressOnlyWhileNotTerminal) {
  Insert({MakeJob("job-p", 100)});
  ASSERT_TRUE(store_->UpdateProgress("job-p", R"({"n":1})").ok());
  MoveTo("job-p", JobStatus::kRunning, 200);
  ASSERT_TRUE(store_->UpdateProgress("job-p", R"({"n":2})").ok());
  EXPECT_EQ(MustGet("job-p").progress_json, R"({"n":2})");
  MoveTo("job-p", JobStatus::kCancelled, 300);
  Status late = store_->UpdateProgress("job-p", R"({"n":3})");
  EXPECT_EQ(late.reason(), "job_terminal");
  EXPECT_EQ(MustGet("job-p").progress_json, R"({"n":2})");
  EXPECT_EQ(store_->UpdateProgress("job-unknown", "{}").reason(), "job_not_found");
}

// --- Redaction -------------------------------------------------------------------

// The redactor sees each record's request and callback URL once, as it
// becomes terminal (or is inserted terminal); a live job keeps its own.
TEST_P(JobStoreContractTest, RequestsAreRedactedExactlyWhenTheyBecomeTerminal) {
  int calls = 0;
  ASSERT_NO_FATAL_FAILURE(OpenFresh([&calls](std::string& request, std::string& url) {
    ++calls;
    request = R"({"redacted":true})";
    url = "https://h/[REDACTED]";
  }));
  JobRecord live = MakeJob("job-000000000000000000000001", 1);
  live.callback_url = "https://h/?sig=1";
  JobRecord cached = MakeJob("job-000000000000000000000002", 1);
  cached.status = JobStatus::kSucceeded;
  cached.callback_url = "https://h/?sig=2";
  Insert({live, cached});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(store_->Get(live.id)->request_json, kRequestJson);
  EXPECT_EQ(store_->Get(live.id)->callback_url, "https://h/?sig=1");
  EXPECT_EQ(store_->Get(cached.id)->request_json, R"({"redacted":true})");
  EXPECT_EQ(store_->Get(cached.id)->callback_url, "https://h/[REDACTED]");
  ASSERT_TRUE(store_->Transition(live.id, JobStatus::kRunning, 2).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(store_->Get(live.id)->request_json, kRequestJson);
  ASSERT_TRUE(store_->Transition(live.id, JobStatus::kFailed, 3, R"({"x":1})").ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(store_->Get(live.id)->request_json, R"({"redacted":true})");
  EXPECT_EQ(store_->Get(live.id)->callback_url, "https://h/[REDACTED]");
  EXPECT_EQ(store_->Get(live.id)->result_json, R"({"x":1})");
}

// --- Durability and Ping ---------------------------------------------------------

TEST_P(JobStoreContractTest, WritesSurviveClosingAndReopening) {
  if (!CanReopen()) GTEST_SKIP() << GetParam().name << " cannot reopen a store";
  JobRecord job = MakeJob("job-durable", 100);
  Insert({job});
  MoveTo("job-durable", JobStatus::kRunning, 200);
  ASSERT_TRUE(store_
                  ->Transition("job-durable", JobStatus::kSucceeded, 300, R"({"exit_code":0})",
                               "sha256:abc")
                  .ok());
  ASSERT_TRUE(store_->CachePut("key-1", R"({"cached":true})", 1000).ok());
  store_.reset();  // Close.

  auto reopened = OpenAgain();
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto got = (*reopened)->Get("job-durable", "default");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->status, JobStatus::kSucceeded);
  EXPECT_EQ(got->result_json, R"({"exit_code":0})");
  EXPECT_EQ(got->image_digest, "sha256:abc");
  EXPECT_EQ(got->started_at_ms, 200);
  EXPECT_EQ(got->finished_at_ms, 300);
  ExpectSameTransitions(
      got->transitions,
      {{JobStatus::kQueued, 100}, {JobStatus::kRunning, 200}, {JobStatus::kSucceeded, 300}});
  auto cached = (*reopened)->CacheGet("key-1", 500);
  ASSERT_TRUE(cached.ok()) << cached.status().ToString();
  EXPECT_EQ(cached->value_or("<none>"), R"({"cached":true})");
}

// Another store over the same data (a second node) sees what the first
// wrote, while the first is still open.
TEST_P(JobStoreContractTest, SecondStoreSeesTheFirstOnesWrites) {
  if (!CanReopen()) GTEST_SKIP() << GetParam().name << " cannot reopen a store";
  auto second = OpenAgain();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Insert({MakeJob("job-1", 100)});
  MoveTo("job-1", JobStatus::kRunning, 200);
  ASSERT_TRUE(store_->CachePut("key-1", "v", 1000).ok());
  auto got = (*second)->Get("job-1", "default");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->status, JobStatus::kRunning);
  EXPECT_EQ(got->started_at_ms, 200);
  EXPECT_EQ((*second)->CacheGet("key-1", 500).value().value_or("<none>"), "v");
  // And the other way round.
  ASSERT_TRUE((*second)->Transition("job-1", JobStatus::kSucceeded, 300).ok());
  EXPECT_EQ(MustGet("job-1").status, JobStatus::kSucceeded);
  EXPECT_EQ(store_->Transition("job-1", JobStatus::kFailed, 400).reason(), "job_terminal");
}

TEST_P(JobStoreContractTest, PingIsOkOnALiveStore) {
  Status s = store_->Ping();
  EXPECT_TRUE(s.ok()) << s.ToString();
  Insert({MakeJob("job-1", 100)});
  s = store_->Ping();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(MustGet("job-1").id, "job-1");  // Ping changed nothing.
  if (!CanReopen()) return;
  auto second = OpenAgain();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  s = (*second)->Ping();
  EXPECT_TRUE(s.ok()) << s.ToString();
}

}  // namespace
}  // namespace coderunner::store
