#include "mcp_http.h"

#include <curl/curl.h>

#include <cctype>
#include <optional>
#include <string_view>

#include "coderunner/common/curl_handle.h"
#include "mcp_messages.h"
#include "sse_parser.h"

namespace coderunner::cli {
namespace {

constexpr long kConnectTimeoutSeconds = 10;
constexpr char kEventStreamType[] = "text/event-stream";

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// One exchange in progress: what the curl callbacks share.
struct Transfer {
  CURL* curl = nullptr;
  const McpHttp::HeadHandler* on_head = nullptr;
  const McpHttp::EventHandler* on_event = nullptr;
  const std::vector<const std::atomic<bool>*>* abort_when = nullptr;
  McpAnswer answer;
  std::string content_type;
  bool head_done = false;
  bool too_large = false;
  std::optional<SseParser> parser;
};

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * n);
  if (StartsWithNoCase(line, "HTTP/")) {
    // A new response (after a 100 Continue or a redirect): forget the last.
    t->content_type.clear();
    t->answer.head.session_id.clear();
  } else if (StartsWithNoCase(line, "content-type:")) {
    t->content_type = Trim(line.substr(13));
  } else if (StartsWithNoCase(line, "mcp-session-id:")) {
    t->answer.head.session_id = Trim(line.substr(15));
  }
  return size * n;
}

void FinishHead(Transfer* t) {
  if (t->head_done) return;
  t->head_done = true;
  long code = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
  McpAnswerHead& head = t->answer.head;
  head.http_status = static_cast<int>(code);
  head.streamed =
      code == 200 && StartsWithNoCase(t->content_type, kEventStreamType) && *t->on_event != nullptr;
  if (head.streamed) {
    t->parser.emplace(
        [t](const std::string&, const std::string& data) {
          // An event without data (a priming event, only an id) carries no message.
          return data.empty() || (*t->on_event)(data);
        },
        kMaxMcpMessageBytes);
  }
  if (*t->on_head) (*t->on_head)(head);
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  FinishHead(t);
  std::string_view chunk(data, size * n);
  if (t->answer.head.streamed) {
    if (t->parser->Feed(chunk)) return chunk.size();
    t->too_large = t->parser->overflowed();
    t->answer.stopped = !t->too_large;
    return 0;  // Ends the transfer.
  }
  if (t->answer.body.size() + chunk.size() > kMaxMcpMessageBytes) {
    t->too_large = true;
    return 0;
  }
  t->answer.body.append(chunk);
  return chunk.size();
}

// Progress callback: a non-zero answer makes curl abandon the transfer.
int CheckRelayAbort(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  for (const std::atomic<bool>* flag : *static_cast<Transfer*>(user)->abort_when) {
    if (flag->load()) return 1;
  }
  return 0;
}

Status RelayTransportError(CURLcode rc, const std::string& url, const char* detail) {
  if (rc == CURLE_ABORTED_BY_CALLBACK) return UnavailableError("abandoned", kReasonAborted);
  std::string why = detail[0] != '\0' ? detail : curl_easy_strerror(rc);
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return DeadlineExceededError("no answer from " + url + " in time: " + why, "client_timeout");
  }
  return UnavailableError("cannot reach " + url + ": " + why, "unreachable");
}

CurlListPtr Headers(const McpExchange& x, const std::string& api_key) {
  CurlListPtr headers;
  auto add = [&headers](const std::string& h) {
    headers.reset(curl_slist_append(headers.release(), h.c_str()));
  };
  add(x.method == "GET" ? "Accept: text/event-stream"
                        : "Accept: application/json, text/event-stream");
  if (x.method == "POST") add("Content-Type: application/json");
  add("Expect:");  // No 100-continue round trip before a large body.
  if (!api_key.empty()) add("Authorization: Bearer " + api_key);
  if (!x.session_id.empty()) add("Mcp-Session-Id: " + x.session_id);
  if (!x.protocol_version.empty()) add("MCP-Protocol-Version: " + x.protocol_version);
  return headers;
}

}  // namespace

McpHttp::McpHttp(std::string base_url, std::string api_key) : api_key_(std::move(api_key)) {
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  url_ = base_url + "/mcp";
  CurlGlobalInit();
}

StatusOr<McpAnswer> McpHttp::Exchange(const McpExchange& exchange, const HeadHandler& on_head,
                                      const EventHandler& on_event) const {
  CurlEasyPtr curl(curl_easy_init());
  if (!curl) return InternalError("curl_easy_init failed");
  CURL* c = curl.get();
  Transfer t;
  t.curl = c;
  t.on_head = &on_head;
  t.on_event = &on_event;
  t.abort_when = &exchange.abort_when;
  char error[CURL_ERROR_SIZE] = {0};
  CurlListPtr headers = Headers(exchange, api_key_);
  curl_easy_setopt(c, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, exchange.method.c_str());
  if (exchange.method == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, exchange.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(exchange.body.size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, CheckRelayAbort);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, kConnectTimeoutSeconds);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, static_cast<long>(exchange.timeout.count()));
  CURLcode rc = curl_easy_perform(c);
  if (t.too_large) {
    return ResourceExhaustedError("a message from " + url_ + " is longer than " +
                                      std::to_string(kMaxMcpMessageBytes) + " bytes",
                                  "answer_too_large");
  }
  if (rc != CURLE_OK && !t.answer.stopped) return RelayTransportError(rc, url_, error);
  FinishHead(&t);  // An answer without a body has its head complete only now.
  return std::move(t.answer);
}

}  // namespace coderunner::cli
