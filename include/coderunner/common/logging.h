// Logging setup (text or JSON lines) and the id of the request a thread is
// handling, which every log line written meanwhile carries.
#ifndef CODERUNNER_COMMON_LOGGING_H_
#define CODERUNNER_COMMON_LOGGING_H_

#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner {

// Sets spdlog's default logger to `level` (trace, debug, info, warn, error)
// and `format`: "text" (human-readable; a line logged while a request is
// handled ends with [req <id>]) or "json" (one object per line: "ts" in UTC
// ISO 8601 with ms, "level", "msg", and "request_id" while a request is
// handled). InvalidArgument for another level or format, leaving the logger
// as it was. Call once at startup, before other threads log.
Status ConfigureLogging(std::string_view level, std::string_view format);

// The id of the request the calling thread is handling, "" if none.
// Thread-safe (per-thread state).
const std::string& CurrentRequestId();

// Makes `id` the calling thread's request id until ClearRequestId (or the
// next SetRequestId). Thread-safe (per-thread state).
void SetRequestId(std::string id);
void ClearRequestId();

// The request id to use for a request that came with header value
// `offered` (X-Request-Id): `offered` itself if it is 1 to 128 characters
// of [A-Za-z0-9._:-] (so a caller's or proxy's id links our logs to
// theirs), else a new random "req-" id. Never fails. Thread-safe.
std::string RequestIdFor(std::string_view offered);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_LOGGING_H_
