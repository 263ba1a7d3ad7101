#include "http_reply.h"

#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "coderunner/auth/long_request_limiter.h"
#include "coderunner/common/disk_room.h"
#include "coderunner/isolation/safe_tree.h"
#include "http_status.h"

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

void ReplyFile(httplib::Response& res, int fd, int64_t size, const std::string& content_type) {
  auto owned = std::make_shared<isolation::UniqueFd>(fd);
  res.status = 200;
  res.set_content_provider(
      static_cast<size_t>(size), content_type,
      [owned, size](size_t offset, size_t length, httplib::DataSink& sink) {
        char buf[65536];
        size_t want = std::min(length, sizeof(buf));
        ssize_t n = pread(owned->get(), buf, want, static_cast<off_t>(offset));
        // A file that shrank underneath us ends the response early; httplib
        // then closes the connection, which the client sees as truncation.
        if (n <= 0 || static_cast<int64_t>(offset) >= size) return false;
        return sink.write(buf, static_cast<size_t>(n));
      },
      [owned](bool) {});
}

void SetRetryAfter(httplib::Response& res, const Status& status) {
  if (status.code() != StatusCode::kResourceExhausted) return;
  const char* seconds = "1";
  if (status.reason() == auth::kTooManyLongRequests) seconds = "2";
  // Room comes back when results are fetched and purged, not in a second.
  if (status.reason() == kReasonDiskFull) seconds = "30";
  res.set_header("Retry-After", seconds);
}

void ReplyError(httplib::Response& res, const Status& status) {
  SetRetryAfter(res, status);
  Reply(res, HttpStatusFor(status), ErrorJson(status));
}

}  // namespace coderunner::api
