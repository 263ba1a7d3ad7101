// JSON rendering of job records for the HTTP API and webhooks.
#ifndef CODERUNNER_WIRE_JOB_JSON_H_
#define CODERUNNER_WIRE_JOB_JSON_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "coderunner/store/job_record.h"

namespace coderunner::wire {

// The full record: id, status, language, timestamps of every transition
// (RFC 3339, UTC, milliseconds), hashes, image and digest, limits, flags and
// "result" (the stored, redacted result) or null. Pure; thread-safe.
nlohmann::json JobToJson(const store::JobRecord& record);

// JobToJson(record) dumped (compact), handed to `write` in pieces that
// keep the stored result as it is, so that it is neither parsed nor copied
// (it can be several MiB). Keys may come in another order than JobToJson's
// dump. Stops at, and returns, the first false from `write`. Pure;
// thread-safe.
bool WriteJobJson(const store::JobRecord& record,
                  const std::function<bool(std::string_view)>& write);

// A list row: the record without "result".
nlohmann::json JobSummaryJson(const store::JobRecord& record);

// The result body (same shape as a run's) of a job that ended without a run
// of its own: cancelled before it finished, or interrupted by crashes.
// `error` is null or {"code","message"}. Pure; thread-safe.
std::string NotRunResultJson(const store::JobRecord& record, store::JobStatus status,
                             const nlohmann::json& error);

// "2026-11-21T13:41:54.123Z" for `ms` since the epoch; null for 0.
nlohmann::json Rfc3339(int64_t ms);

}  // namespace coderunner::wire

#endif  // CODERUNNER_WIRE_JOB_JSON_H_
