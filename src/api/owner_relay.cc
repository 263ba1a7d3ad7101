// CurlRelay (owner_forwarder.h): one bounded HTTP exchange with an owner
// node through libcurl; and the setup it shares with CurlStreamRelay
// (relay_curl.h).
#include <curl/curl.h>

#include <cctype>
#include <string>
#include <utility>

#include "coderunner/common/curl_handle.h"
#include "owner_forwarder.h"
#include "relay_curl.h"

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

// A multipart body's Content-Type is libcurl's, with its boundary.
bool IsMultipart(const RelayRequest& req) {
  return req.content_type.rfind("multipart/form-data", 0) == 0;
}

// The request's headers (the caller's key and type, those its route named,
// the hop marker).
CurlListPtr Headers(const RelayRequest& req) {
  curl_slist* list = nullptr;
  auto add = [&list](const std::string& h) {
    if (curl_slist* next = curl_slist_append(list, h.c_str())) list = next;
  };
  if (!req.authorization.empty()) add("Authorization: " + req.authorization);
  // None from the caller, none to the owner (libcurl would send a form's).
  if (!IsMultipart(req)) {
    add(req.content_type.empty() ? "Content-Type:" : "Content-Type: " + req.content_type);
  }
  for (const auto& [name, value] : req.headers) add(name + ": " + value);
  add(std::string(kForwardedByHeader) + ": " + req.forwarded_by);
  add("Expect:");  // No 100-continue round trip for a body.
  return CurlListPtr(list);
}

// The parts of a multipart body (libcurl copies each).
CurlMimePtr Parts(CURL* h, const RelayRequest& req) {
  CurlMimePtr mime(curl_mime_init(h));
  if (!mime) return mime;
  for (const RelayPart& p : req.parts) {
    curl_mimepart* part = curl_mime_addpart(mime.get());
    if (part == nullptr) return nullptr;
    curl_mime_name(part, p.name.c_str());
    curl_mime_data(part, p.content.data(), p.content.size());
    if (!p.filename.empty()) curl_mime_filename(part, p.filename.c_str());
    if (!p.content_type.empty()) curl_mime_type(part, p.content_type.c_str());
  }
  return mime;
}

void SetOptions(CURL* h, const RelayRequest& req, RelayTransfer& t, RelayResponse& out) {
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
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, t.headers.get());
  if (t.mime) {
    curl_easy_setopt(h, CURLOPT_MIMEPOST, t.mime.get());
  } else if (req.method == "POST" || !req.body.empty()) {
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
  }
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  // A HEAD's answer has no body, whatever its Content-Length says.
  if (req.method == "HEAD") curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &out);
}

}  // namespace

StatusOr<RelayTransfer> NewRelayTransfer(const RelayRequest& req, RelayResponse* out) {
  CurlGlobalInit();
  RelayTransfer t;
  t.easy.reset(curl_easy_init());
  if (!t.easy) return InternalError("curl_easy_init failed", kReasonForwardFailed);
  t.headers = Headers(req);
  if (IsMultipart(req)) {
    t.mime = Parts(t.easy.get(), req);
    if (!t.mime) return InternalError("curl_mime_init failed", kReasonForwardFailed);
  }
  SetOptions(t.easy.get(), req, t, *out);
  return t;
}

Status RelayFailure(CURLcode rc, const RelayRequest& req) {
  const std::string where = req.method + " " + req.url + ": ";
  if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST) {
    return UnavailableError(where + curl_easy_strerror(rc), kReasonOwnerUnreachable);
  }
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return DeadlineExceededError(
        where + "the owner did not answer within " + std::to_string(req.timeout_ms) + " ms",
        kReasonForwardFailed);
  }
  return UnavailableError(where + curl_easy_strerror(rc), kReasonForwardFailed);
}

StatusOr<RelayResponse> CurlRelay(const RelayRequest& req) {
  RelayResponse out;
  CR_ASSIGN_OR_RETURN(RelayTransfer t, NewRelayTransfer(req, &out));
  Sink sink{&out, req.max_body_bytes};
  curl_easy_setopt(t.easy.get(), CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(t.easy.get(), CURLOPT_WRITEDATA, &sink);
  const CURLcode rc = curl_easy_perform(t.easy.get());
  if (sink.over) {
    return InternalError(req.method + " " + req.url + ": the owner's answer is over " +
                             std::to_string(req.max_body_bytes) + " bytes",
                         kReasonForwardFailed);
  }
  if (rc != CURLE_OK) return RelayFailure(rc, req);
  long status = 0;
  curl_easy_getinfo(t.easy.get(), CURLINFO_RESPONSE_CODE, &status);
  out.status = static_cast<int>(status);
  return out;
}

}  // namespace coderunner::api
