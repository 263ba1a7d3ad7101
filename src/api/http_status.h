// The one place where a Status becomes an HTTP answer.
#ifndef CODERUNNER_API_HTTP_STATUS_H_
#define CODERUNNER_API_HTTP_STATUS_H_

#include <nlohmann/json.hpp>

#include "coderunner/common/status.h"

namespace coderunner::api {

// A request body over server.max_body_bytes (413).
inline constexpr char kReasonBodyTooLarge[] = "body_too_large";

// InvalidArgument 400 (413 for reason "body_too_large", 401 for
// "unauthenticated"), NotFound 404, AlreadyExists 409, FailedPrecondition 422
// (403 for reason "forbidden"), ResourceExhausted 429,
// Unavailable 503, DeadlineExceeded 504, Internal 500. OK is 200.
int HttpStatusFor(const Status& status);

// {"error":{"code": reason, "message": message}}.
nlohmann::json ErrorJson(const Status& status);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_HTTP_STATUS_H_
