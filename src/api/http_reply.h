// Writing JSON answers into cpp-httplib responses.
#ifndef CODERUNNER_API_HTTP_REPLY_H_
#define CODERUNNER_API_HTTP_REPLY_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "coderunner/common/status.h"

namespace httplib {
struct Response;
}

namespace coderunner::api {

// Sets `status` and `body` (application/json). Invalid UTF-8 in strings is
// replaced, never thrown on.
void Reply(httplib::Response& res, int status, const nlohmann::json& body);
// Sets `body` as-is (already JSON text).
void ReplyRaw(httplib::Response& res, int status, const std::string& json_text);
// Streams the regular file behind `fd` (taking ownership) as the body,
// `size` bytes from offset 0, read as httplib asks for it.
void ReplyFile(httplib::Response& res, int fd, int64_t size, const std::string& content_type);
// The error envelope with the status from HttpStatusFor; adds Retry-After
// for ResourceExhausted (429; see SetRetryAfter).
void ReplyError(httplib::Response& res, const Status& status);

// Writes an error answer for a Status: ReplyError, or a route family's own
// shape (Piston's). Must be thread-safe.
using ErrorWriter = void (*)(httplib::Response& res, const Status& status);

// Adds Retry-After for a ResourceExhausted `status` (nothing for another):
// 2 s for auth::kTooManyLongRequests (a held request lasts longer), 1 s
// for any other.
void SetRetryAfter(httplib::Response& res, const Status& status);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_HTTP_REPLY_H_
