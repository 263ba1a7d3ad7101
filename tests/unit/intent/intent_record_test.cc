#include "coderunner/intent/intent_record.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "coderunner/common/sha256.h"
#include "coderunner/jobs/job_request.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;

TEST(IntentRecordTest, QueuedIntentJobWithTheNormalizedRequest) {
  config::Config config = config::DefaultConfig();
  const config::TierConfig* pro = config.FindTier("pro");
  ASSERT_NE(pro, nullptr);
  struct Case {
    const char* name;
    const config::TierConfig* tier;
    const char* stored_tier;
    int64_t run_ms;  // The runs' default timeout and CPU time: the budget.
  };
  for (const Case& c :
       {Case{"on a tier", pro, "pro", 120000}, Case{"without a tier", nullptr, "", 60000}}) {
    SCOPED_TRACE(c.name);
    auto req = ParseIntentRequest(
        json{{"intent", "a bash one-liner"}, {"inputs", {{"n", 3}}}}.dump(), config, c.tier);
    ASSERT_TRUE(req.ok()) << req.status().ToString();
    auto rec = IntentRecord("acme", c.tier, *req, config);
    ASSERT_TRUE(rec.ok()) << rec.status().ToString();
    EXPECT_EQ(rec->id.rfind("job-", 0), 0u);
    EXPECT_EQ(rec->kind, "intent");
    EXPECT_EQ(rec->tenant, "acme");
    EXPECT_EQ(rec->language, "bash");
    EXPECT_EQ(rec->status, store::JobStatus::kQueued);
    ASSERT_EQ(rec->transitions.size(), 1u);
    EXPECT_EQ(rec->transitions[0].status, store::JobStatus::kQueued);
    EXPECT_EQ(rec->code_sha256, Sha256Hex("a bash one-liner"));
    EXPECT_EQ(rec->inputs_sha256, Sha256Hex(json{{"n", 3}}.dump()));
    EXPECT_EQ(rec->image, config.FindLanguage("bash")->image);
    json limits = json::parse(rec->limits_json);
    EXPECT_EQ(limits["timeout_ms"], c.run_ms);
    EXPECT_EQ(limits["cpu_ms"], c.run_ms);
    EXPECT_EQ(json::parse(rec->request_json).value("tier", ""), c.stored_tier);
    auto stored = jobs::DecodeStoredRequest(rec->request_json);
    ASSERT_TRUE(stored.ok());
    auto back = IntentRequestFromJson(stored->first, config);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->intent, "a bash one-liner");
  }
}

TEST(IntentRecordTest, LimitsAboveTheTierAreRefused) {
  config::Config config = config::DefaultConfig();
  const config::TierConfig* free = config.FindTier("free");
  ASSERT_NE(free, nullptr);
  // Parsed without a tier, then recorded on one that allows less.
  auto req = ParseIntentRequest(
      json{{"intent", "x"}, {"limits", {{"timeout_ms", free->max_timeout_ms + 1}}}}.dump(), config,
      nullptr);
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_EQ(IntentRecord("acme", free, *req, config).status().reason(), "limit_exceeded");
}

}  // namespace
}  // namespace coderunner::intent
