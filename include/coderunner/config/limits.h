// Limits: the resource bounds one job runs under, and how a request may
// override them.
#ifndef CODERUNNER_CONFIG_LIMITS_H_
#define CODERUNNER_CONFIG_LIMITS_H_

#include <cstdint>
#include <optional>

#include "coderunner/common/status.h"

namespace coderunner::config {

// Defaults follow the baseline profile of seed 001 §4.5.
struct Limits {
  int64_t timeout_ms = 10000;          // Wall clock, ms. The container is killed at this.
  int64_t cpu_ms = 10000;              // CPU time, ms (RLIMIT_CPU, rounded up to seconds).
  int64_t memory_bytes = 256LL << 20;  // Memory == MemorySwap: no swap.
  int64_t pids = 64;                   // PidsLimit: processes + threads.
  int64_t output_bytes = 1LL << 20;    // Cap per stream (stdout, stderr), bytes.
  int64_t tmp_bytes = 64LL << 20;      // Size of the /tmp tmpfs, bytes; also RLIMIT_FSIZE.
  double cpus = 1.0;                   // NanoCpus / 1e9.
};

// A request's optional overrides; unset fields take the defaults.
struct LimitOverrides {
  std::optional<int64_t> timeout_ms, cpu_ms, memory_bytes, pids, output_bytes, tmp_bytes;
  std::optional<double> cpus;
};

// Applies `overrides` to `defaults`. A value above `max` is
// FailedPrecondition with reason "limit_exceeded" naming the limit and the
// maximum; a value below the floor (e.g. 0 ms, under 6 MiB of memory, which
// the engines refuse) is InvalidArgument. Pure; thread-safe.
StatusOr<Limits> ResolveLimits(const Limits& defaults, const Limits& max,
                               const LimitOverrides& overrides);

// Checks that `defaults` fit under `max` and above the floors (config load).
Status ValidateLimitPair(const Limits& defaults, const Limits& max);

}  // namespace coderunner::config

#endif  // CODERUNNER_CONFIG_LIMITS_H_
