// CurlRelay (owner_forwarder.h): one bounded HTTP exchange with an owner
// node through libcurl.
#include <curl/curl.h>

#include <cctype>
#include <string>
#include <utility>

#include "coderunner/common/curl_handle.h"
#include "owner_forwarder.h"

namespace coderunner::api {
namespace {

struct Sink {
  RelayResponse* out;
  size_t max_body_bytes;
  bool over = false;
};

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t bytes = size * n;
  if (sink->out->body.size() + bytes > sink->max_body_bytes) {
    sink->over = true;
    return 0;  // Aborts the transfer (CURLE_WRITE_ERROR).
  }
  sink->out->body.append(data, bytes);
  return bytes;
}

// `line` is "Name: value\r\n": sets `value` (trimmed) when Name is `name`
// (case-insensitive).
bool HeaderValue(const std::string& line, const std::string& name, std::string& value) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) !=
        std::tolower(static_cast<unsigned char>(name[i]))) {
      return false;
    }
  }
  size_t b = name.size() + 1, e = line.size();
  while (b < e && (line[b] == ' ' || line[b] == '\t')) ++b;
  while (e > b && (line[e - 1] == '\r' || line[e - 1] == '\n' || line[e - 1] == ' ')) --e;
  value = line.substr(b, e - b);
  return true;
}

size_t WriteHeader(char* data, size_t size, size_t n, void* user) {
  auto* out = static_cast<RelayResponse*>(user);
  const std::string line(data, size * n);
  if (HeaderValue(line, "Content-Type", out->content_type)) return size * n;
  for (const char* name : kRelayedHeaders) {
    std::string value;
    if (HeaderValue(line, name, value)) {
      out->headers.emplace_back(name, std::move(value));
      break;
    }
  }
  return size * n;
}

// The request's headers (the caller's key and type, the hop marker).
CurlListPtr Headers(const RelayRequest& req) {
  curl_slist* list = nullptr;
  auto add = [&list](const std::string& h) {
    if (curl_slist* next = curl_slist_append(list, h.c_str())) list = next;
  };
  if (!req.authorization.empty()) add("Authorization: " + req.authorization);
  // None from the caller, none to the owner (libcurl would send a form's).
  add(req.content_type.empty() ? "Content-Type:" : "Content-Type: " + req.content_type);
  add(std::string(kForwardedByHeader) + ": " + req.forwarded_by);
  add("Expect:");  // No 100-continue round trip for a body.
  return CurlListPtr(list);
}

void SetOptions(CURL* h, const RelayRequest& req, curl_slist* headers, Sink& sink,
                RelayResponse& out) {
  curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
  // The path as built (relay_path.h): libcurl would otherwise remove dot
  // segments, and a relay could reach another path on the owner.
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
  // Straight to the owner: never through a proxy named in the service's
  // environment (http_proxy, HTTPS_PROXY, ALL_PROXY), which would see the
  // caller's key.
  curl_easy_setopt(h, CURLOPT_PROXY, "");
  curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(req.connect_timeout_ms));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout_ms));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  // A HEAD's answer has no body, whatever its Content-Length says.
  if (req.method == "HEAD") curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  if (req.method == "POST" || !req.body.empty()) {
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
  }
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &out);
}

}  // namespace

StatusOr<RelayResponse> CurlRelay(const RelayRequest& req) {
  CurlGlobalInit();
  CurlEasyPtr h(curl_easy_init());
  if (!h) return InternalError("curl_easy_init failed", kReasonForwardFailed);
  RelayResponse out;
  Sink sink{&out, req.max_body_bytes};
  CurlListPtr headers = Headers(req);
  SetOptions(h.get(), req, headers.get(), sink, out);
  const CURLcode rc = curl_easy_perform(h.get());
  const std::string where = req.method + " " + req.url + ": ";
  if (sink.over) {
    return InternalError(
        where + "the owner's answer is over " + std::to_string(req.max_body_bytes) + " bytes",
        kReasonForwardFailed);
  }
  if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST) {
    return UnavailableError(where + curl_easy_strerror(rc), kReasonOwnerUnreachable);
  }
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return DeadlineExceededError(
        where + "the owner did not answer within " + std::to_string(req.timeout_ms) + " ms",
        kReasonForwardFailed);
  }
  if (rc != CURLE_OK) return UnavailableError(where + curl_easy_strerror(rc), kReasonForwardFailed);
  long status = 0;
  curl_easy_getinfo(h.get(), CURLINFO_RESPONSE_CODE, &status);
  out.status = static_cast<int>(status);
  return out;
}

}  // namespace coderunner::api
