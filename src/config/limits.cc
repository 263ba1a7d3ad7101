#include "coderunner/config/limits.h"

#include <string>

namespace coderunner::config {
namespace {

template <typename T>
Status Check(const char* name, T value, T min, T max) {
  if (!(value >= min)) {  // Also catches NaN.
    return InvalidArgumentError("limits." + std::string(name) + " must be at least " +
                                    std::to_string(min) + ", got " + std::to_string(value),
                                "invalid_limit");
  }
  if (value > max) {
    return FailedPreconditionError("limits." + std::string(name) + " = " + std::to_string(value) +
                                       " exceeds the maximum " + std::to_string(max),
                                   "limit_exceeded");
  }
  return OkStatus();
}

Status CheckAll(const Limits& l, const Limits& max) {
  CR_RETURN_IF_ERROR(Check<int64_t>("timeout_ms", l.timeout_ms, 1, max.timeout_ms));
  CR_RETURN_IF_ERROR(Check<int64_t>("cpu_ms", l.cpu_ms, 1, max.cpu_ms));
  CR_RETURN_IF_ERROR(Check<int64_t>("memory_bytes", l.memory_bytes, 6LL << 20, max.memory_bytes));
  CR_RETURN_IF_ERROR(Check<int64_t>("pids", l.pids, 2, max.pids));
  CR_RETURN_IF_ERROR(Check<int64_t>("output_bytes", l.output_bytes, 0, max.output_bytes));
  CR_RETURN_IF_ERROR(Check<int64_t>("tmp_bytes", l.tmp_bytes, 1LL << 20, max.tmp_bytes));
  CR_RETURN_IF_ERROR(Check<double>("cpus", l.cpus, 0.01, max.cpus));
  return OkStatus();
}

}  // namespace

StatusOr<Limits> ResolveLimits(const Limits& defaults, const Limits& max, const LimitOverrides& o) {
  Limits l = defaults;
  if (o.timeout_ms) l.timeout_ms = *o.timeout_ms;
  if (o.cpu_ms) l.cpu_ms = *o.cpu_ms;
  if (o.memory_bytes) l.memory_bytes = *o.memory_bytes;
  if (o.pids) l.pids = *o.pids;
  if (o.output_bytes) l.output_bytes = *o.output_bytes;
  if (o.tmp_bytes) l.tmp_bytes = *o.tmp_bytes;
  if (o.cpus) l.cpus = *o.cpus;
  CR_RETURN_IF_ERROR(CheckAll(l, max));
  return l;
}

Status ValidateLimitPair(const Limits& defaults, const Limits& max) {
  return CheckAll(defaults, max);
}

}  // namespace coderunner::config
