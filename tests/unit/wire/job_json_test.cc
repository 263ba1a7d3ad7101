#include "coderunner/wire/job_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::wire {
namespace {

using nlohmann::json;
using store::JobRecord;
using store::JobStatus;

// 2026-11-21T13:41:54Z.
constexpr int64_t kSecs = 1795268514;

TEST(Rfc3339Test, FormatsUtcWithMilliseconds) {
  struct Case {
    int64_t ms;
    const char* want;
  };
  const std::vector<Case> cases = {
      {kSecs * 1000 + 123, "2026-11-21T13:41:54.123Z"},
      {kSecs * 1000, "2026-11-21T13:41:54.000Z"},
      {kSecs * 1000 + 7, "2026-11-21T13:41:54.007Z"},
      {kSecs * 1000 + 999, "2026-11-21T13:41:54.999Z"},
      {1, "1970-01-01T00:00:00.001Z"},
      {951782400000, "2000-02-29T00:00:00.000Z"},   // Leap day.
      {1704067199999, "2023-12-31T23:59:59.999Z"},  // Year boundary.
      {4102444800000, "2100-01-01T00:00:00.000Z"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.ms);
    json j = Rfc3339(c.ms);
    ASSERT_TRUE(j.is_string()) << j.dump();
    EXPECT_EQ(j.get<std::string>(), c.want);
  }
}

TEST(Rfc3339Test, ZeroIsNull) { EXPECT_TRUE(Rfc3339(0).is_null()); }

store::JobRecord FullRecord() {
  store::JobRecord r;
  r.id = "job-0123456789abcdef01234567";
  r.tenant = "acme";
  r.status = store::JobStatus::kSucceeded;
  r.language = "python";
  r.request_json = R"json({"request":{"code":"print(1)"}})json";
  r.code_sha256 = std::string(64, 'a');
  r.inputs_sha256 = std::string(64, 'b');
  r.cache_key = std::string(64, 'c');
  r.image = "coderunner/python:3.11";
  r.image_digest = "sha256:" + std::string(64, 'd');
  r.limits_json = R"({"timeout_ms":1000,"cpus":1.5})";
  r.callback_url = "https://example.com/hook";
  r.replay_of = "job-aaaaaaaaaaaaaaaaaaaaaaaa";
  r.cached = true;
  r.attempt = 2;
  r.created_at_ms = kSecs * 1000 + 1;
  r.started_at_ms = kSecs * 1000 + 2;
  r.finished_at_ms = kSecs * 1000 + 3;
  r.transitions = {{store::JobStatus::kQueued, kSecs * 1000 + 1},
                   {store::JobStatus::kRunning, kSecs * 1000 + 2},
                   {store::JobStatus::kSucceeded, kSecs * 1000 + 3}};
  r.result_json = R"({"status":"succeeded","stdout":"1\n","exit_code":0})";
  return r;
}

TEST(JobToJsonTest, RendersEveryFieldOfAFullRecord) {
  json j = JobToJson(FullRecord());
  EXPECT_EQ(j["id"], "job-0123456789abcdef01234567");
  EXPECT_EQ(j["status"], "succeeded");
  EXPECT_EQ(j["language"], "python");
  EXPECT_EQ(j["created_at"], "2026-11-21T13:41:54.001Z");
  EXPECT_EQ(j["started_at"], "2026-11-21T13:41:54.002Z");
  EXPECT_EQ(j["finished_at"], "2026-11-21T13:41:54.003Z");
  EXPECT_EQ(j["code_sha256"], std::string(64, 'a'));
  EXPECT_EQ(j["inputs_sha256"], std::string(64, 'b'));
  EXPECT_EQ(j["image"], "coderunner/python:3.11");
  EXPECT_EQ(j["image_digest"], "sha256:" + std::string(64, 'd'));
  EXPECT_EQ(j["limits"], json::parse(R"({"timeout_ms":1000,"cpus":1.5})"));
  EXPECT_EQ(j["cached"], true);
  EXPECT_EQ(j["attempt"], 2);
  EXPECT_EQ(j["replay_of"], "job-aaaaaaaaaaaaaaaaaaaaaaaa");
  EXPECT_EQ(j["callback_url"], "https://example.com/hook");
  EXPECT_EQ(j["result"], json::parse(R"({"status":"succeeded","stdout":"1\n","exit_code":0})"));
}

TEST(JobToJsonTest, TransitionsCarryStatusAndTimeInOrder) {
  json t = JobToJson(FullRecord())["transitions"];
  ASSERT_TRUE(t.is_array());
  ASSERT_EQ(t.size(), 3u);
  const char* statuses[] = {"queued", "running", "succeeded"};
  const char* times[] = {"2026-11-21T13:41:54.001Z", "2026-11-21T13:41:54.002Z",
                         "2026-11-21T13:41:54.003Z"};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(t[i]["status"], statuses[i]);
    EXPECT_EQ(t[i]["at"], times[i]);
    EXPECT_EQ(t[i].size(), 2u);
  }
}

TEST(JobToJsonTest, AFreshQueuedRecordHasNullsForWhatIsNotKnownYet) {
  store::JobRecord r;
  r.id = "job-1";
  r.language = "bash";
  r.image = "coderunner/bash:5";
  r.created_at_ms = kSecs * 1000;
  r.transitions = {{store::JobStatus::kQueued, kSecs * 1000}};
  json j = JobToJson(r);
  EXPECT_EQ(j["status"], "queued");
  EXPECT_EQ(j["created_at"], "2026-11-21T13:41:54.000Z");
  for (const char* key :
       {"started_at", "finished_at", "image_digest", "replay_of", "callback_url", "result"}) {
    SCOPED_TRACE(key);
    ASSERT_TRUE(j.contains(key));
    EXPECT_TRUE(j[key].is_null()) << j[key].dump();
  }
  EXPECT_EQ(j["cached"], false);
  EXPECT_EQ(j["attempt"], 1);
  ASSERT_EQ(j["transitions"].size(), 1u);
}

TEST(JobToJsonTest, UnparseableStoredJsonBecomesNull) {
  store::JobRecord r = FullRecord();
  r.result_json = "{truncated";
  r.limits_json = "";
  json j = JobToJson(r);
  EXPECT_TRUE(j["result"].is_null());
  EXPECT_TRUE(j["limits"].is_null());
}

TEST(JobToJsonTest, NeverExposesTenantRequestOrCacheKey) {
  json j = JobToJson(FullRecord());
  for (const char* key : {"tenant", "request_json", "request", "cache_key", "result_json"}) {
    EXPECT_FALSE(j.contains(key)) << key;
  }
}

TEST(JobSummaryJsonTest, IsTheFullRecordWithoutResult) {
  store::JobRecord r = FullRecord();
  json summary = JobSummaryJson(r);
  EXPECT_FALSE(summary.contains("result"));
  json full = JobToJson(r);
  full.erase("result");
  EXPECT_EQ(summary, full);
}

TEST(WriteJobJsonTest, WritesWhatJobToJsonRendersPassingTheStoredResultThrough) {
  struct Case {
    const char* name;
    std::string kind;
    std::string result_json;
    std::string progress_json;
    bool passed_through;  // The stored result reaches `write` as it is.
  };
  const std::string big = R"({"stdout":")" + std::string(1 << 20, 'y') + R"(","exit_code":0})";
  const std::vector<Case> cases = {
      {"a job's result", "job", FullRecord().result_json, "", true},
      {"a result of 1 MiB", "job", big, "", true},
      {"no result yet", "job", "", "", false},
      {"unparseable", "job", "{truncated", "", false},
      {"not an object", "job", "[1,2]", "", false},
      {"a raw newline (not ours)", "job", "{\"a\":\n1}", "", false},
      {"an intent", "intent", FullRecord().result_json, R"({"answer":"42","attempts":1})", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    store::JobRecord r = FullRecord();
    r.kind = c.kind;
    r.result_json = c.result_json;
    r.progress_json = c.progress_json;
    std::string text;
    bool passed_through = false;
    EXPECT_TRUE(WriteJobJson(r, [&](std::string_view piece) {
      passed_through |= piece.data() == r.result_json.data() && !piece.empty();
      text.append(piece);
      return true;
    }));
    EXPECT_EQ(passed_through, c.passed_through);
    EXPECT_EQ(text.find_first_of("\r\n"), std::string::npos) << "an SSE data line";
    json got = json::parse(text, nullptr, false);
    ASSERT_FALSE(got.is_discarded()) << text.substr(0, 200);
    EXPECT_EQ(got, JobToJson(r));
  }
}

TEST(WriteJobJsonTest, StopsAtTheFirstFailedWrite) {
  int calls = 0;
  EXPECT_FALSE(WriteJobJson(FullRecord(), [&](std::string_view) {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace coderunner::wire
