// Tier limits: the defaults and maxima a job of a tier runs under, and the
// tier's Execute-mode budget (seed 000, Tier Limits: free 30 s, pro 2 min,
// business 10 min, enterprise configurable).
//
// A tier's budget is its max_timeout_ms. It is the longest wall-clock
// timeout and the most CPU time any job of the tier's tenants may ask for
// (replacing limits.max.timeout_ms and limits.max.cpu_ms for them, as
// max_memory_bytes replaces limits.max.memory_bytes); Execute mode's runs
// default to it (timeout and CPU); and it is an intent's execution budget,
// shared by all of its runs. Without a tier the global limits apply and the
// budget is limits.max.timeout_ms.
#ifndef CODERUNNER_CONFIG_TIER_LIMITS_H_
#define CODERUNNER_CONFIG_TIER_LIMITS_H_

#include <cstdint>

#include "coderunner/config/config.h"
#include "coderunner/config/limits.h"

namespace coderunner::config {

// Who asks: an ordinary job (/v1/execute, /v1/jobs, Piston, sandboxes),
// whose defaults are limits.default, or a run of Execute mode (an
// intent's generated program), whose timeout and CPU time default to the
// budget.
enum class LimitsUse { kJob, kExecuteMode };

// What a request that names no limit gets, and the most it may ask for.
struct LimitBounds {
  Limits defaults;
  Limits max;
};

// The Execute-mode budget of `tier` (nullable: no tier), in ms:
// tier->max_timeout_ms, else limits.max.timeout_ms. Pure; thread-safe.
int64_t TierBudgetMs(const Config& config, const TierConfig* tier);

// The bounds of a job of `tier` (nullable) used as `use`. With a tier:
// max.timeout_ms = max.cpu_ms = its budget and max.memory_bytes = its
// max_memory_bytes; every other maximum is limits.max's; limits.default's
// timeout, CPU and memory are lowered to fit those maxima. For kExecuteMode
// the default timeout and CPU time are the budget. Without a tier:
// limits.default and limits.max (kExecuteMode: timeout and CPU default to
// limits.max.timeout_ms and .cpu_ms). Pure; thread-safe.
LimitBounds TierLimitBounds(const Config& config, const TierConfig* tier, LimitsUse use);

// The run time all runs of one intent of `tier` (nullable) may use
// together, in ms: the tier's budget, lowered to intents.exec_budget_ms
// when that is set (> 0). Pure; thread-safe.
int64_t IntentExecBudgetMs(const Config& config, const TierConfig* tier);

// `limits` with timeout_ms and cpu_ms lowered to `left_ms` (what remains
// of an intent's execution budget; at least 1). Pure.
Limits CapRunTime(Limits limits, int64_t left_ms);

}  // namespace coderunner::config

#endif  // CODERUNNER_CONFIG_TIER_LIMITS_H_
