// Tier limits: each tier's Execute-mode budget bounds its jobs' timeout and
// CPU time, is the default of its intents' runs, and is an intent's
// execution budget.
#include "coderunner/config/tier_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace coderunner::config {
namespace {

constexpr int64_t kSecond = 1000;
constexpr int64_t kMinute = 60 * kSecond;

TEST(TierLimitsTest, DefaultBudgetsAreTheSeedsTierLimits) {
  Config c = DefaultConfig();
  struct Want {
    const char* tier;
    int64_t budget_ms;
  };
  for (const Want& w : {Want{"free", 30 * kSecond}, Want{"pro", 2 * kMinute},
                        Want{"business", 10 * kMinute}, Want{"enterprise", 10 * kMinute}}) {
    SCOPED_TRACE(w.tier);
    const TierConfig* t = c.FindTier(w.tier);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(TierBudgetMs(c, t), w.budget_ms);
    EXPECT_EQ(IntentExecBudgetMs(c, t), w.budget_ms);
    // Every budget covers the maxima and the Execute-mode defaults.
    for (LimitsUse use : {LimitsUse::kJob, LimitsUse::kExecuteMode}) {
      LimitBounds b = TierLimitBounds(c, t, use);
      EXPECT_EQ(b.max.timeout_ms, w.budget_ms);
      EXPECT_EQ(b.max.cpu_ms, w.budget_ms);
    }
    LimitBounds exec = TierLimitBounds(c, t, LimitsUse::kExecuteMode);
    EXPECT_EQ(exec.defaults.timeout_ms, w.budget_ms);
    EXPECT_EQ(exec.defaults.cpu_ms, w.budget_ms);
  }
  EXPECT_GE(TierBudgetMs(c, c.FindTier("enterprise")), TierBudgetMs(c, c.FindTier("business")));
}

TEST(TierLimitsTest, BoundsPerTierAndUse) {
  Config c = DefaultConfig();
  c.default_limits.timeout_ms = 10 * kSecond;
  c.default_limits.cpu_ms = 10 * kSecond;
  c.default_limits.memory_bytes = 256LL << 20;
  c.max_limits.timeout_ms = kMinute;
  c.max_limits.cpu_ms = 50 * kSecond;
  c.max_limits.memory_bytes = 1LL << 30;
  TierConfig tiny;
  tiny.name = "tiny";
  tiny.max_timeout_ms = 2 * kSecond;
  tiny.max_memory_bytes = 128LL << 20;
  TierConfig big;
  big.name = "big";
  big.max_timeout_ms = 4 * kMinute;
  big.max_memory_bytes = 8LL << 30;
  struct Case {
    const char* name;
    const TierConfig* tier;
    LimitsUse use;
    int64_t default_timeout, default_cpu, default_memory;
    int64_t max_timeout, max_cpu, max_memory;
  };
  const Case cases[] = {
      // No tier: the global limits; Execute mode defaults to their maxima.
      {"no tier, job", nullptr, LimitsUse::kJob, 10 * kSecond, 10 * kSecond, 256LL << 20, kMinute,
       50 * kSecond, 1LL << 30},
      {"no tier, execute mode", nullptr, LimitsUse::kExecuteMode, kMinute, 50 * kSecond,
       256LL << 20, kMinute, 50 * kSecond, 1LL << 30},
      // A tier below the global defaults lowers them to fit.
      {"tiny, job", &tiny, LimitsUse::kJob, 2 * kSecond, 2 * kSecond, 128LL << 20, 2 * kSecond,
       2 * kSecond, 128LL << 20},
      {"tiny, execute mode", &tiny, LimitsUse::kExecuteMode, 2 * kSecond, 2 * kSecond, 128LL << 20,
       2 * kSecond, 2 * kSecond, 128LL << 20},
      // A tier above the global maxima replaces them; a job's default
      // timeout stays limits.default's, an intent's run gets the budget.
      {"big, job", &big, LimitsUse::kJob, 10 * kSecond, 10 * kSecond, 256LL << 20, 4 * kMinute,
       4 * kMinute, 8LL << 30},
      {"big, execute mode", &big, LimitsUse::kExecuteMode, 4 * kMinute, 4 * kMinute, 256LL << 20,
       4 * kMinute, 4 * kMinute, 8LL << 30},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    LimitBounds b = TierLimitBounds(c, k.tier, k.use);
    EXPECT_EQ(b.defaults.timeout_ms, k.default_timeout);
    EXPECT_EQ(b.defaults.cpu_ms, k.default_cpu);
    EXPECT_EQ(b.defaults.memory_bytes, k.default_memory);
    EXPECT_EQ(b.max.timeout_ms, k.max_timeout);
    EXPECT_EQ(b.max.cpu_ms, k.max_cpu);
    EXPECT_EQ(b.max.memory_bytes, k.max_memory);
    // The other limits are the global ones.
    EXPECT_EQ(b.defaults.pids, c.default_limits.pids);
    EXPECT_EQ(b.max.pids, c.max_limits.pids);
    EXPECT_EQ(b.max.output_bytes, c.max_limits.output_bytes);
    EXPECT_EQ(b.max.cpus, c.max_limits.cpus);
  }
}

TEST(TierLimitsTest, IntentExecBudgetIsTheTiersUnlessLoweredGlobally) {
  struct Case {
    int64_t exec_budget_ms;  // intents.exec_budget_ms
    const char* tier;        // "" for none.
    int64_t want;
  };
  const Case cases[] = {
      {0, "free", 30 * kSecond},
      {0, "pro", 2 * kMinute},
      {0, "business", 10 * kMinute},
      {0, "", kMinute},  // limits.max.timeout_ms.
      {90 * kSecond, "free", 30 * kSecond},
      {90 * kSecond, "pro", 90 * kSecond},
      {90 * kSecond, "", kMinute},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.tier) + " " + std::to_string(k.exec_budget_ms));
    Config c = DefaultConfig();
    c.intents.exec_budget_ms = k.exec_budget_ms;
    const TierConfig* t = *k.tier != '\0' ? c.FindTier(k.tier) : nullptr;
    EXPECT_EQ(IntentExecBudgetMs(c, t), k.want);
  }
}

TEST(TierLimitsTest, CapRunTimeLowersTimeoutAndCpuToWhatIsLeft) {
  struct Case {
    int64_t timeout_ms, cpu_ms, left_ms, want_timeout, want_cpu;
  };
  const Case cases[] = {
      {30000, 30000, 50000, 30000, 30000},
      {30000, 30000, 12000, 12000, 12000},
      {30000, 5000, 12000, 12000, 5000},
      {30000, 30000, 0, 1, 1},  // Never below 1 ms.
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.left_ms);
    Limits l;
    l.timeout_ms = k.timeout_ms;
    l.cpu_ms = k.cpu_ms;
    Limits capped = CapRunTime(l, k.left_ms);
    EXPECT_EQ(capped.timeout_ms, k.want_timeout);
    EXPECT_EQ(capped.cpu_ms, k.want_cpu);
    EXPECT_EQ(capped.memory_bytes, l.memory_bytes);
  }
}

TEST(TierLimitsTest, ConfiguredBudgetsApply) {
  auto c = ParseConfig(
      "tiers:\n  enterprise: {max_timeout_ms: 1800000}\n  free: {max_timeout_ms: 2000}\n"
      "intents: {exec_budget_ms: 0}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(IntentExecBudgetMs(*c, c->FindTier("enterprise")), 1800000);
  LimitBounds free = TierLimitBounds(*c, c->FindTier("free"), LimitsUse::kExecuteMode);
  EXPECT_EQ(free.defaults.timeout_ms, 2000);
  EXPECT_EQ(free.max.cpu_ms, 2000);
}

}  // namespace
}  // namespace coderunner::config
