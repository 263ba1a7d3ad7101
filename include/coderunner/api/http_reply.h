// Writing JSON answers into cpp-httplib responses.
#ifndef CODERUNNER_API_HTTP_REPLY_H_
#define CODERUNNER_API_HTTP_REPLY_H_

#include <nlohmann/json.hpp>

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
// The error envelope with the status from HttpStatusFor; adds Retry-After
// for ResourceExhausted (429).
void ReplyError(httplib::Response& res, const Status& status);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_HTTP_REPLY_H_
