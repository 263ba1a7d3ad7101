#include "coderunner/config/tier_limits.h"

#include <algorithm>

namespace coderunner::config {

int64_t TierBudgetMs(const Config& config, const TierConfig* tier) {
  return tier != nullptr ? tier->max_timeout_ms : config.max_limits.timeout_ms;
}

LimitBounds TierLimitBounds(const Config& config, const TierConfig* tier, LimitsUse use) {
  LimitBounds b{config.default_limits, config.max_limits};
  if (tier != nullptr) {
    b.max.timeout_ms = tier->max_timeout_ms;
    b.max.cpu_ms = tier->max_timeout_ms;
    b.max.memory_bytes = tier->max_memory_bytes;
  }
  if (use == LimitsUse::kExecuteMode) {
    b.defaults.timeout_ms = b.max.timeout_ms;
    b.defaults.cpu_ms = b.max.cpu_ms;
  }
  b.defaults.timeout_ms = std::min(b.defaults.timeout_ms, b.max.timeout_ms);
  b.defaults.cpu_ms = std::min(b.defaults.cpu_ms, b.max.cpu_ms);
  b.defaults.memory_bytes = std::min(b.defaults.memory_bytes, b.max.memory_bytes);
  return b;
}

int64_t IntentExecBudgetMs(const Config& config, const TierConfig* tier) {
  int64_t budget = TierBudgetMs(config, tier);
  if (config.intents.exec_budget_ms > 0) budget = std::min(budget, config.intents.exec_budget_ms);
  return budget;
}

Limits CapRunTime(Limits limits, int64_t left_ms) {
  left_ms = std::max<int64_t>(left_ms, 1);
  limits.timeout_ms = std::min(limits.timeout_ms, left_ms);
  limits.cpu_ms = std::min(limits.cpu_ms, left_ms);
  return limits;
}

}  // namespace coderunner::config
