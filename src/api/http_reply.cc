#include "coderunner/api/http_reply.h"

#include <httplib.h>

#include "coderunner/api/http_status.h"

namespace coderunner::api {

void Reply(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  "application/json");
}

void ReplyRaw(httplib::Response& res, int status, const std::string& json_text) {
  res.status = status;
  res.set_content(json_text, "application/json");
}

void ReplyError(httplib::Response& res, const Status& status) {
  if (status.code() == StatusCode::kResourceExhausted) res.set_header("Retry-After", "1");
  Reply(res, HttpStatusFor(status), ErrorJson(status));
}

}  // namespace coderunner::api
