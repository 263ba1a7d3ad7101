// The JSON shape of a job's resource limits ("limits" of a job record, and
// of limits.default / limits.max in GET /v1/info).
#ifndef CODERUNNER_WIRE_LIMITS_JSON_H_
#define CODERUNNER_WIRE_LIMITS_JSON_H_

#include <nlohmann/json.hpp>

#include "coderunner/config/limits.h"

namespace coderunner::wire {

// {"timeout_ms", "cpu_ms", "memory_bytes", "pids", "output_bytes",
// "tmp_bytes", "cpus"} of `limits`, in the units config::Limits names
// (ms, bytes, count, CPUs). Pure; thread-safe.
nlohmann::json LimitsToJson(const config::Limits& limits);

}  // namespace coderunner::wire

#endif  // CODERUNNER_WIRE_LIMITS_JSON_H_
