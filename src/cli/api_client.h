// ApiClient: the CLI's HTTP client for a coderunner service (libcurl, so
// http and https). Every answer outside 2xx becomes a Status carrying the
// server's {"error":{"code","message"}}; a transport failure is
// Unavailable. Each call uses its own curl handle: an ApiClient may be used
// from several threads at once.
#ifndef CODERUNNER_CLI_API_CLIENT_H_
#define CODERUNNER_CLI_API_CLIENT_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "coderunner/common/status.h"

namespace coderunner::cli {

// An HTTP error answer without an error code of its own.
inline constexpr char kReasonHttpError[] = "http_error";

// The service's URL when neither --server nor $CODERUNNER_URL names one
// (config/coderunner.yaml's server.listen).
inline constexpr const char* kDefaultServerUrl = "http://127.0.0.1:8080";

// One 2xx answer.
struct ApiAnswer {
  int http_status = 0;
  nlohmann::json body;  // The parsed body (null if empty or not JSON).
};

// The Status for an HTTP error answer: the code follows the status (400,
// 401, 413 InvalidArgument; 403, 409, 422 FailedPrecondition; 404 NotFound;
// 429 ResourceExhausted; 503 Unavailable; 504 DeadlineExceeded; other
// Internal), the reason is error.code and the message error.message ("HTTP
// <status>" and the start of the body when the body is not our error JSON).
// Pure.
Status StatusFromHttp(int http_status, const std::string& body);

class ApiClient {
 public:
  // `base_url` like "http://127.0.0.1:8080" (a trailing '/' is dropped);
  // `api_key` "" sends no Authorization header, else "Bearer <key>".
  ApiClient(std::string base_url, std::string api_key);

  // Sends `method` ("GET", "POST", "DELETE") to `path` (e.g. "/v1/jobs"),
  // with `body` as JSON when not empty, and waits at most `timeout` for
  // the whole answer. Errors: Unavailable when the service cannot be
  // reached (naming the URL), DeadlineExceeded after `timeout`, else
  // StatusFromHttp for a non-2xx answer. When `abort` (not owned) turns
  // true the request is abandoned within about a second: Unavailable with
  // reason "interrupted".
  StatusOr<ApiAnswer> Call(const std::string& method, const std::string& path,
                           const std::string& body = "",
                           std::chrono::seconds timeout = std::chrono::seconds(60),
                           const std::atomic<bool>* abort = nullptr) const;

  // GETs `path` as a Server-Sent Events stream and hands each event to
  // `on_event` as it arrives, until the stream ends or `on_event` returns
  // false (which is OK). A stream silent for `idle` (the service sends a
  // keep-alive every 15 s) is an Unavailable error, as are transport and
  // HTTP errors (StatusFromHttp). `abort` as for Call.
  using EventHandler = std::function<bool(const std::string& event, const std::string& data)>;
  Status StreamEvents(const std::string& path, const EventHandler& on_event,
                      std::chrono::seconds idle = std::chrono::seconds(60),
                      const std::atomic<bool>* abort = nullptr) const;

  const std::string& base_url() const { return base_url_; }
  const std::string& api_key() const { return api_key_; }

 private:
  std::string base_url_;
  std::string api_key_;
};

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_API_CLIENT_H_
