#include "api_client.h"

#include <curl/curl.h>

#include <memory>

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/curl_handle.h"
#include "sse_parser.h"

namespace coderunner::cli {
namespace {

using nlohmann::json;

size_t AppendBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

// What the stream callback needs: the handle (for the status code), the
// parser, and the error body of a non-200 answer.
struct StreamState {
  CURL* curl = nullptr;
  SseParser* parser = nullptr;
  std::string error_body;
  bool stopped = false;
};

size_t FeedStream(char* data, size_t size, size_t n, void* user) {
  auto* state = static_cast<StreamState*>(user);
  long code = 0;
  curl_easy_getinfo(state->curl, CURLINFO_RESPONSE_CODE, &code);
  if (code != 200) {
    state->error_body.append(data, size * n);
    return size * n;
  }
  if (!state->parser->Feed(std::string_view(data, size * n))) {
    state->stopped = true;
    return 0;  // Aborts the transfer: the handler has what it wanted.
  }
  return size * n;
}

// Progress callback: a non-zero answer makes curl abandon the transfer.
int CheckAbort(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* abort = static_cast<const std::atomic<bool>*>(user);
  return abort->load() ? 1 : 0;
}

void WatchAbort(CURL* c, const std::atomic<bool>* abort) {
  if (abort == nullptr) return;
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, CheckAbort);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, abort);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
}

Status TransportError(CURLcode rc, const std::string& url, const char* detail) {
  if (rc == CURLE_ABORTED_BY_CALLBACK) return UnavailableError("interrupted", "interrupted");
  std::string why = detail[0] != '\0' ? detail : curl_easy_strerror(rc);
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return DeadlineExceededError("no answer from coderunner at " + url + " in time: " + why,
                                 "client_timeout");
  }
  return UnavailableError("cannot reach coderunner at " + url + ": " + why, "unreachable");
}

}  // namespace

Status StatusFromHttp(int http_status, const std::string& body) {
  StatusCode code = StatusCode::kInternal;
  switch (http_status) {
    case 400:
    case 401:
    case 413:
      code = StatusCode::kInvalidArgument;
      break;
    case 403:
    case 409:
    case 422:
      code = StatusCode::kFailedPrecondition;
      break;
    case 404:
      code = StatusCode::kNotFound;
      break;
    case 429:
      code = StatusCode::kResourceExhausted;
      break;
    case 503:
      code = StatusCode::kUnavailable;
      break;
    case 504:
      code = StatusCode::kDeadlineExceeded;
      break;
    default:
      break;
  }
  json j = ParseBoundedJsonOrDiscarded(body, JsonBounds{});
  if (j.is_object() && j.contains("error") && j["error"].is_object()) {
    const json& e = j["error"];
    std::string reason = e.contains("code") && e["code"].is_string() ? e["code"].get<std::string>()
                                                                     : kReasonHttpError;
    std::string message = e.contains("message") && e["message"].is_string()
                              ? e["message"].get<std::string>()
                              : "HTTP " + std::to_string(http_status);
    return Status(code, message, reason);
  }
  std::string start = body.substr(0, 200);
  while (!start.empty() && (start.back() == '\n' || start.back() == '\r')) start.pop_back();
  return Status(code, "HTTP " + std::to_string(http_status) + (start.empty() ? "" : ": " + start),
                kReasonHttpError);
}

ApiClient::ApiClient(std::string base_url, std::string api_key)
    : base_url_(std::move(base_url)), api_key_(std::move(api_key)) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
  CurlGlobalInit();
}

StatusOr<ApiAnswer> ApiClient::Call(const std::string& method, const std::string& path,
                                    const std::string& body, std::chrono::seconds timeout,
                                    const std::atomic<bool>* abort) const {
  CurlEasyPtr curl(curl_easy_init());
  if (!curl) return InternalError("curl_easy_init failed");
  std::string url = base_url_ + path;
  std::string answer;
  char error[CURL_ERROR_SIZE] = {0};
  CurlListPtr headers;
  auto add_header = [&headers](const std::string& h) {
    headers.reset(curl_slist_append(headers.release(), h.c_str()));
  };
  add_header("Accept: application/json");
  if (!api_key_.empty()) add_header("Authorization: Bearer " + api_key_);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (!body.empty() || method == "POST") {
    add_header("Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, static_cast<long>(timeout.count()));
  WatchAbort(c, abort);
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) return TransportError(rc, base_url_, error);
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  if (code < 200 || code >= 300) return StatusFromHttp(static_cast<int>(code), answer);
  ApiAnswer out;
  out.http_status = static_cast<int>(code);
  // The server's answer is bytes from the network: bounded like a request.
  out.body = ParseBoundedJsonOrDiscarded(answer, JsonBounds{});
  if (out.body.is_discarded()) out.body = nullptr;
  return out;
}

Status ApiClient::StreamEvents(const std::string& path, const EventHandler& on_event,
                               std::chrono::seconds idle, const std::atomic<bool>* abort) const {
  CurlEasyPtr curl(curl_easy_init());
  if (!curl) return InternalError("curl_easy_init failed");
  std::string url = base_url_ + path;
  char error[CURL_ERROR_SIZE] = {0};
  CurlListPtr headers;
  auto add_header = [&headers](const std::string& h) {
    headers.reset(curl_slist_append(headers.release(), h.c_str()));
  };
  add_header("Accept: text/event-stream");
  if (!api_key_.empty()) add_header("Authorization: Bearer " + api_key_);
  SseParser parser(on_event);
  StreamState state;
  state.curl = curl.get();
  state.parser = &parser;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, FeedStream);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  // No overall timeout (a job may run for long); a silent stream is dead.
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, static_cast<long>(idle.count()));
  WatchAbort(c, abort);
  CURLcode rc = curl_easy_perform(c);
  if (state.stopped) return OkStatus();
  if (rc != CURLE_OK) {
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      return UnavailableError("the event stream from " + base_url_ + " went silent",
                              "stream_stalled");
    }
    return TransportError(rc, base_url_, error);
  }
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  if (code != 200) return StatusFromHttp(static_cast<int>(code), state.error_body);
  return OkStatus();
}

}  // namespace coderunner::cli
