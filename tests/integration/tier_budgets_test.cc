// Execute mode's tier budgets (issue 17) on a real engine: a job, and an
// intent, that need a little more than their tier's budget end as timeout,
// while the same work under the next tier up completes. The budgets are
// scaled down (free 1 s, pro 3 s, business 5 s, enterprise 7 s) so the
// suite stays fast; everything runs at once and only sleeps.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "llm_engine_test.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

struct Tier {
  const char* name;
  const char* key;
  int64_t budget_ms;
};

// In budget order; each tier's "next" is the one after it.
const Tier kTiers[] = {
    {"free", "free-budget-key-0123456789", 1000},
    {"pro", "pro-budget-key-0123456789", 3000},
    {"business", "business-budget-key-0123456789", 5000},
    {"enterprise", "enterprise-budget-key-0123456789", 7000},
};
constexpr size_t kTierCount = sizeof(kTiers) / sizeof(kTiers[0]);

// Work that sleeps half a second more than `tier`'s budget (the
// interpreter's start comes on top): more than it allows, well within the
// next tier's (2 s more, 1.5 s to spare).
double WorkSeconds(const Tier& tier) { return (tier.budget_ms + 500) / 1000.0; }

// A job or intent submitted by `tier`'s tenant, and the status it must end
// with.
struct Submitted {
  const Tier* tier;
  std::string id;
  const char* want;
};

// The program every intent's model writes: it sleeps `secs` (an input).
constexpr const char* kSleepCode = "import time\ntime.sleep(secs)\nprint('done')";

class TierBudgetsTest : public LlmEngineTest {
 protected:
  std::string ExtraConfig() const override {
    std::vector<TestKey> keys;
    std::string tiers = "tiers:\n";
    for (const Tier& t : kTiers) {
      keys.push_back({t.name, t.name, t.key});
      tiers +=
          std::string("  ") + t.name + ": {max_timeout_ms: " + std::to_string(t.budget_ms) + "}\n";
    }
    return ApiKeysYaml(keys) + tiers + "llm: {base_url: \"" + llm_->base_url() +
           "\", model: fake-model}\n"
           "intents: {agent_match_threshold: 0}\n"
           "jobs: {max_concurrent: 16, cache_ttl_s: 0}\n"
           "pool: {enabled: false}\n";
  }

  // POSTs `body` to `path` as `tier`'s tenant; the accepted job's id.
  std::string Submit(const Tier& tier, const std::string& path, const json& body) {
    HttpAnswer a = server_->Call("POST", path, tier.key, body.dump());
    EXPECT_EQ(a.status, 202) << path << " " << a.body;
    return a.json.is_object() ? a.json.value("id", "") : "";
  }

  // The record of job `id` of `tier`'s tenant once terminal.
  json Wait(const Tier& tier, const std::string& id) {
    HttpAnswer a = server_->Call("GET", "/v1/jobs/" + id + "/wait?timeout_s=120", tier.key);
    EXPECT_EQ(a.status, 200) << a.body;
    return a.json;
  }
};

// A job of `tier` sleeping `secs` with its tier's maximum timeout.
json SleepJob(const Tier& tier, double secs) {
  return {{"language", "python"},
          {"code", "import time\ntime.sleep(" + std::to_string(secs) + ")\nprint('done')"},
          {"limits", {{"timeout_ms", tier.budget_ms}}}};
}

TEST_F(TierBudgetsTest, AJobOverItsTiersBudgetTimesOutAndTheNextTierCompletesIt) {
  // Each tier's maxima are its budget, for wall clock and CPU time alike.
  for (const Tier& t : kTiers) {
    SCOPED_TRACE(t.name);
    for (const char* limit : {"timeout_ms", "cpu_ms"}) {
      json over = {{"code", "print(1)"}, {"limits", {{limit, t.budget_ms + 1}}}};
      HttpAnswer a = server_->Call("POST", "/v1/jobs", t.key, over.dump());
      EXPECT_EQ(a.status, 422) << a.body;
      EXPECT_EQ(a.json["error"]["code"], "limit_exceeded") << a.body;
    }
  }
  // All at once: tier i's work under tier i, and under tier i + 1.
  std::vector<Submitted> jobs;
  for (size_t i = 0; i < kTierCount; ++i) {
    double secs = WorkSeconds(kTiers[i]);
    jobs.push_back(
        {&kTiers[i], Submit(kTiers[i], "/v1/jobs", SleepJob(kTiers[i], secs)), "timeout"});
    if (i + 1 < kTierCount) {
      const Tier& next = kTiers[i + 1];
      jobs.push_back({&next, Submit(next, "/v1/jobs", SleepJob(next, secs)), "succeeded"});
    }
  }
  for (const Submitted& s : jobs) {
    SCOPED_TRACE(std::string(s.tier->name) + " wants " + s.want);
    json rec = Wait(*s.tier, s.id);
    EXPECT_EQ(rec["status"], s.want) << rec.dump(2).substr(0, 3000);
    EXPECT_EQ(rec["result"]["limits"]["timeout_ms"], s.tier->budget_ms);
    if (std::string(s.want) == "succeeded") {
      EXPECT_EQ(rec["result"]["stdout"], "done\n");
    }
  }
}

TEST_F(TierBudgetsTest, AnIntentOverItsTiersBudgetTimesOutAndTheNextTierCompletesIt) {
  // One program for every intent (it sleeps its input `secs`), so the
  // model's replies may go to the intents in any order.
  json replies = json::array();
  for (size_t i = 0; i < 2 * kTierCount - 1; ++i) {
    replies.push_back(CodeReply("```python\n" + std::string(kSleepCode) + "\n```\n"));
  }
  for (size_t i = 0; i + 1 < kTierCount; ++i) replies.push_back(FormatReply("done"));
  llm_->Script(replies);
  std::vector<Submitted> intents;
  for (size_t i = 0; i < kTierCount; ++i) {
    json body = {{"intent", "sleep for secs seconds, then print done"},
                 {"language", "python"},
                 {"inputs", {{"secs", WorkSeconds(kTiers[i])}}}};
    intents.push_back({&kTiers[i], Submit(kTiers[i], "/v1/intents", body), "timeout"});
    if (i + 1 < kTierCount) {
      const Tier& next = kTiers[i + 1];
      intents.push_back({&next, Submit(next, "/v1/intents", body), "succeeded"});
    }
  }
  for (const Submitted& s : intents) {
    SCOPED_TRACE(std::string(s.tier->name) + " wants " + s.want);
    json rec = Wait(*s.tier, s.id);
    EXPECT_EQ(rec["status"], s.want) << rec.dump(2).substr(0, 3000);
    // The run's default timeout and CPU time are the tier's budget.
    EXPECT_EQ(rec["result"]["limits"]["timeout_ms"], s.tier->budget_ms);
    EXPECT_EQ(rec["result"]["limits"]["cpu_ms"], s.tier->budget_ms);
    if (std::string(s.want) == "succeeded") {
      EXPECT_EQ(rec["result"]["stdout"], "done\n");
    } else {
      // Its execution budget is the tier's too: nothing is left to try again.
      EXPECT_EQ(rec["result"]["status"], "timeout");
      EXPECT_EQ(rec["error"]["code"], "exec_budget_exhausted") << rec["error"];
      EXPECT_EQ(rec["attempts"].size(), 1u);
    }
  }
}

}  // namespace
}  // namespace coderunner::testing
