// Answer: what a route handler returns, and the handler shapes the auth
// adapter (auth_adapter.h) wraps. A handler parses the request into typed
// values, calls a module and returns an Answer, or a Status that the
// adapter answers as an error; it never writes to the response itself.
#ifndef CODERUNNER_API_ROUTE_H_
#define CODERUNNER_API_ROUTE_H_

#include <httplib.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "coderunner/auth/authenticator.h"
#include "coderunner/common/status.h"
#include "coderunner/isolation/safe_tree.h"

namespace coderunner::api {

// A body sent as-is: JSON text already serialised, or another type
// (Prometheus text).
struct TextBody {
  std::string text;
  std::string content_type = "application/json";
};

// A body read from a regular file: `size` bytes from offset 0 of `fd`
// (owned; closed when the last copy of the Answer or of httplib's
// provider goes).
struct FileBody {
  std::shared_ptr<isolation::UniqueFd> fd;
  int64_t size = 0;  // Bytes.
  std::string content_type;
};

// A chunked body written piece by piece as httplib asks for it (Server-Sent
// Events). The provider owns whatever must live as long as the stream
// (a long-request lease, say). It goes out under the Answer's status
// (Answer::Stream: 200; a relayed stream: the owner's).
struct StreamBody {
  std::string content_type;
  httplib::ContentProviderWithoutLength provider;
};

// One successful answer: an HTTP status, a body and extra headers.
struct Answer {
  int status = 200;
  // nlohmann::json: written as application/json, invalid UTF-8 in strings
  // replaced (see Reply in http_reply.h).
  std::variant<nlohmann::json, TextBody, FileBody, StreamBody> body;
  // Set on the response in this order, beside those the body implies.
  std::vector<std::pair<std::string, std::string>> headers;

  // `body` as application/json with `status`.
  static Answer Json(int status, nlohmann::json body);
  // `text` as-is with `status` and `content_type` (default JSON).
  static Answer Text(int status, std::string text, std::string content_type = "application/json");
  // 200 with the regular file behind `fd` (owned) as a download named by
  // `path`'s last component: application/octet-stream, its size read now,
  // with DownloadHeaders(path) (response_headers.h: an attachment that
  // never runs as a page). `stat_error` when the size cannot be read (the
  // file is closed then).
  static StatusOr<Answer> File(isolation::UniqueFd fd, std::string_view path,
                               const Status& stat_error);
  // A chunked body of `content_type` written by `provider` (status 200).
  static Answer Stream(std::string content_type, httplib::ContentProviderWithoutLength provider);

  // Adds a header; returns *this for chaining.
  Answer& WithHeader(std::string name, std::string value);
};

// Writes `answer` into `res`: status, body (or content provider), headers.
void WriteAnswer(httplib::Response& res, Answer answer);

// A /v1 route's handler: who is calling (authenticated, within its rate)
// and the request; an Answer, or a Status the adapter answers as an error
// (http_status.h). Called on httplib's threads: must be thread-safe.
using Handler = std::function<StatusOr<Answer>(const auth::Principal&, const httplib::Request&)>;
// The same for a body route that reads the parsed body (RouteTable's
// BodyHandler: null when the request had none).
using JsonHandler = std::function<StatusOr<Answer>(const auth::Principal&, const httplib::Request&,
                                                   const nlohmann::json& body)>;
// A route that needs no key (probes, the OpenAPI document).
using OpenHandler = std::function<StatusOr<Answer>(const httplib::Request&)>;

}  // namespace coderunner::api

#endif  // CODERUNNER_API_ROUTE_H_
