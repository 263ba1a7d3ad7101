// JobService over a SQLite job store and the fake engine transport, without
// workers (Start is not called): what acceptance commits, the bounds it
// meets, the result cache, cancel, replay and drain.
#include "coderunner/jobs/job_service.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "coderunner/wire/execute_request.h"
#include "coderunner/wire/job_submission.h"
#include "jobs/job_metrics.h"
#include "unit/jobs/job_service_fixture.h"

namespace coderunner::jobs {
namespace {

using nlohmann::json;

constexpr const char* kAcme = "acme";
constexpr const char* kGlobex = "globex";
constexpr const char* kDigest =
    "sha256:feedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeed";
constexpr const char* kCachedResult = R"json({"status":"succeeded","stdout":"1\n"})json";

class JobServiceTest : public JobServiceFixture {
 protected:
  StatusOr<Accepted> Submit(const std::string& tenant, const std::string& body,
                            const config::TierConfig* tier = nullptr) {
    auto submission = wire::ParseJobSubmission(body, service_->submission_rules());
    if (!submission.ok()) return submission.status();
    return service_->Submit(tenant, std::move(*submission), tier);
  }

  // The cache key the service computes for `body` run by `tenant`.
  std::string KeyFor(const std::string& body, const std::string& tenant) {
    auto req = wire::ParseExecuteRequest(body, wire::RequestCaps{});
    EXPECT_TRUE(req.ok());
    auto spec = wire::BuildJobSpec(*req, config_, "any");
    EXPECT_TRUE(spec.ok());
    return CacheKey(*spec, tenant, kDigest, req->output_encoding);
  }
};

TEST_F(JobServiceTest, SubmitCommitsTheJobQueuedWithTheBodyWithoutItsJobOnlyFields) {
  Service();
  auto accepted = Submit(
      kAcme, R"json({"code":"print(1)","callback_url":"https://example.com/h","cache":false})json");
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
  EXPECT_NE(accepted->channel, nullptr);
  auto rec = store_->Get(accepted->record.id, kAcme);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->status, store::JobStatus::kQueued);
  EXPECT_EQ(rec->callback_url, "https://example.com/h");
  EXPECT_EQ(rec->request_json,
            EncodeStoredRequest(R"json({"code":"print(1)"})json", "", false, ""));
  EXPECT_EQ(queue_->size(), 1u);
  // A job a caller does not wait for is rebuilt from the store when it runs.
  EXPECT_EQ(accepted->channel->TakePrepared(), nullptr);
}

TEST_F(JobServiceTest, AdmissionBounds) {
  struct Case {
    const char* name;
    size_t queue_capacity;
    int tier_max_queued;  // 0: no tier.
    int submits;
    const char* last_reason;  // "" when the last is accepted.
  };
  const Case cases[] = {
      {"within the queue", 2, 0, 2, ""},
      {"queue full", 1, 0, 2, "queue_full"},
      {"within the tier", 10, 2, 2, ""},
      {"tier queue full", 10, 1, 2, "tier_queue_full"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Service(c.queue_capacity);
    config::TierConfig tier;
    tier.name = "free";
    tier.max_queued = c.tier_max_queued;
    StatusOr<Accepted> last = InternalError("not submitted");
    for (int i = 0; i < c.submits; ++i) {
      last =
          Submit(kAcme, R"json({"code":"print(1)"})json", c.tier_max_queued > 0 ? &tier : nullptr);
    }
    if (*c.last_reason == '\0') {
      EXPECT_TRUE(last.ok()) << last.status().ToString();
    } else {
      EXPECT_EQ(last.status().code(), StatusCode::kResourceExhausted);
      EXPECT_EQ(last.status().reason(), c.last_reason);
    }
  }
}

TEST_F(JobServiceTest, RequestsThatDoNotBuildAreRefusedBeforeAnythingIsStored) {
  struct Case {
    const char* body;
    const char* reason;
  };
  const Case cases[] = {
      {R"json({"code":"1","language":"cobol"})json", "unknown_language"},
      {R"json({"code":"1","limits":{"timeout_ms":999999999}})json", "limit_exceeded"},
      {R"json({"code":"1","volume_id":"vol-1"})json", "volumes_unavailable"},
  };
  Service();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto accepted = Submit(kAcme, c.body);
    ASSERT_FALSE(accepted.ok());
    EXPECT_EQ(accepted.status().reason(), c.reason);
  }
  EXPECT_EQ(queue_->size(), 0u);
  store::ListFilter filter;
  filter.tenant = kAcme;
  auto page = store_->List(filter);
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->jobs.empty());
}

TEST_F(JobServiceTest, SubmissionErrorsComeFromTheCodecInOrder) {
  struct Case {
    const char* body;
    const char* reason;
  };
  const Case cases[] = {
      {R"json({"code":"1","callback_url":5})json", "invalid_request"},
      {R"json({"code":"1","callback_url":"ftp://x"})json", "invalid_callback_url"},
      {R"json({"code":"1","cache":"yes"})json", "invalid_request"},
      {R"json({"code":5})json", "invalid_request"},
      {R"json({"code":)json", "invalid_json"},
  };
  Service();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto submission = wire::ParseJobSubmission(c.body, service_->submission_rules());
    ASSERT_FALSE(submission.ok());
    EXPECT_EQ(submission.status().reason(), c.reason);
  }
}

TEST_F(JobServiceTest, SubmitBatchAnswersEachEntryInOrder) {
  Service();
  std::vector<StatusOr<wire::JobSubmission>> entries;
  entries.push_back(
      wire::ParseJobSubmission(R"json({"code":"1"})json", service_->submission_rules()));
  entries.push_back(InvalidArgumentError("bad entry", "invalid_request"));
  entries.push_back(
      wire::ParseJobSubmission(R"json({"code":"2"})json", service_->submission_rules()));
  auto out = service_->SubmitBatch(kAcme, std::move(entries));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].ok());
  EXPECT_EQ(out[1].status().reason(), "invalid_request");
  EXPECT_TRUE(out[2].ok());
  EXPECT_EQ(queue_->size(), 2u);
}

TEST_F(JobServiceTest, TheCacheAnswersOnlyTheSameTenant) {
  struct Case {
    const char* tenant;
    bool use_cache;
    bool cached;
  };
  const Case cases[] = {
      {kAcme, true, true},
      {kAcme, false, false},
      {kGlobex, true, false},
  };
  const std::string body = R"json({"code":"print(1)"})json";
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.tenant) + (c.use_cache ? " cache" : " no cache"));
    config_.jobs.cache_ttl_s = 3600;
    Service();
    engine_->AnswerJson("GET", "/images/" + config_.DefaultLanguage().image + "/json", 200,
                        {{"Id", kDigest}});
    ASSERT_TRUE(store_->CachePut(KeyFor(body, kAcme), kCachedResult, NowMs() + 60000).ok());
    auto accepted =
        Submit(c.tenant, c.use_cache ? body : R"json({"code":"print(1)","cache":false})json");
    ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
    EXPECT_EQ(accepted->record.cached, c.cached);
    if (c.cached) {
      EXPECT_EQ(accepted->channel, nullptr);
      EXPECT_EQ(accepted->record.status, store::JobStatus::kSucceeded);
      json result = json::parse(accepted->record.result_json);
      EXPECT_EQ(result["id"], accepted->record.id);
      EXPECT_EQ(result["cached"], true);
      EXPECT_EQ(queue_->size(), 0u);
    } else {
      EXPECT_EQ(accepted->record.status, store::JobStatus::kQueued);
      EXPECT_EQ(queue_->size(), 1u);
    }
  }
}

// A native job runs the host's interpreter: neither answered from the cache
// (a container's result would not say "runtime": "native") nor keyed for it.
TEST_F(JobServiceTest, NativeJobsAreNeverCached) {
  const std::string body = R"json({"code":"print(1)"})json";
  config_.jobs.cache_ttl_s = 3600;
  config_.code_runner.runtime = config::RunMode::kNative;
  Service();
  engine_->AnswerJson("GET", "/images/" + config_.DefaultLanguage().image + "/json", 200,
                      {{"Id", kDigest}});
  ASSERT_TRUE(store_->CachePut(KeyFor(body, kAcme), kCachedResult, NowMs() + 60000).ok());
  auto accepted = Submit(kAcme, body);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
  EXPECT_FALSE(accepted->record.cached);
  EXPECT_EQ(accepted->record.cache_key, "");
  EXPECT_EQ(accepted->record.status, store::JobStatus::kQueued);
}

TEST_F(JobServiceTest, CancelOfAQueuedJobTakesItOffTheQueue) {
  Service();
  auto accepted = Submit(kAcme, R"json({"code":"print(1)"})json");
  ASSERT_TRUE(accepted.ok());
  EXPECT_EQ(service_->Cancel(accepted->record.id, kGlobex).status().code(), StatusCode::kNotFound);
  auto cancelled = service_->Cancel(accepted->record.id, kAcme);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status().ToString();
  EXPECT_EQ(cancelled->status, store::JobStatus::kCancelled);
  EXPECT_EQ(queue_->size(), 0u);
  EXPECT_TRUE(accepted->channel->terminal());
  EXPECT_EQ(service_->Channel(accepted->record.id), nullptr);
}

TEST_F(JobServiceTest, ReplayPinsTheDigestTheOriginalRanOn) {
  struct Case {
    const char* kind;
    const char* reason;  // "" when the replay is accepted.
  };
  const Case cases[] = {{"job", ""}, {"intent", "replay_unsupported"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.kind);
    Service();
    store::JobRecord r;
    r.id = std::string("job-") + c.kind;
    r.kind = c.kind;
    r.tenant = kAcme;
    r.status = store::JobStatus::kSucceeded;
    r.language = "python";
    r.request_json = EncodeStoredRequest(R"json({"code":"print(2)"})json", "", false, "");
    r.image = config_.DefaultLanguage().image;
    r.image_digest = kDigest;
    r.limits_json = "{}";
    r.created_at_ms = r.finished_at_ms = NowMs();
    r.transitions = {{store::JobStatus::kQueued, r.created_at_ms},
                     {store::JobStatus::kSucceeded, r.created_at_ms}};
    r.result_json = "{}";
    ASSERT_TRUE(store_->Insert({r}).ok());
    auto replay = service_->Replay(r.id, kAcme);
    if (*c.reason != '\0') {
      EXPECT_EQ(replay.status().reason(), c.reason);
      continue;
    }
    ASSERT_TRUE(replay.ok()) << replay.status().ToString();
    EXPECT_EQ(replay->record.replay_of, r.id);
    EXPECT_EQ(replay->record.request_json,
              EncodeStoredRequest(R"json({"code":"print(2)"})json", kDigest, false, ""));
  }
}

TEST_F(JobServiceTest, DrainKeepsQueuedJobsQueuedAndRefusesNewOnes) {
  Service();
  auto accepted = Submit(kAcme, R"json({"code":"print(1)"})json");
  ASSERT_TRUE(accepted.ok());
  service_->Drain(std::chrono::milliseconds(0));
  EXPECT_TRUE(accepted->channel->terminal());
  auto rec = store_->Get(accepted->record.id, kAcme);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->status, store::JobStatus::kQueued);
  auto refused = Submit(kAcme, R"json({"code":"print(1)"})json");
  EXPECT_EQ(refused.status().reason(), "shutting_down");
}

TEST_F(JobServiceTest, ExecuteBeforeStartIsUnavailable) {
  Service();
  auto submission =
      wire::ParseJobSubmission(R"json({"code":"1"})json", service_->submission_rules());
  ASSERT_TRUE(submission.ok());
  auto answer = service_->Execute(kAcme, std::move(*submission));
  EXPECT_EQ(answer.status().reason(), "not_started");
}

}  // namespace
}  // namespace coderunner::jobs
