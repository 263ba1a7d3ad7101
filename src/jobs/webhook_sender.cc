#include "coderunner/jobs/webhook_sender.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "coderunner/common/address_policy.h"
#include "coderunner/common/curl_handle.h"
#include "coderunner/jobs/webhook_signature.h"

namespace coderunner::jobs {
namespace {

constexpr size_t kMaxUrlLength = 2048;
constexpr size_t kMaxHostLength = 253;
// Backoff doubling stops here, so a large `retries` cannot overflow.
constexpr std::chrono::milliseconds kMaxBackoff = std::chrono::hours(1);

// --- URL parsing -------------------------------------------------------------

Status BadUrl(std::string message) {
  return InvalidArgumentError("callback_url: " + std::move(message), "invalid_callback_url");
}

char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool HeaderStartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (LowerAscii(s[i]) != prefix[i]) return false;
  }
  return true;
}

bool IsHostNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

bool IsLocalhostName(std::string_view host) {
  std::string lower;
  for (char c : host) lower += LowerAscii(c);
  if (!lower.empty() && lower.back() == '.') lower.pop_back();
  constexpr std::string_view kLocalhost = "localhost";
  constexpr std::string_view kDotLocalhost = ".localhost";  // RFC 6761: all loopback.
  return lower == kLocalhost || (lower.size() > kDotLocalhost.size() &&
                                 lower.compare(lower.size() - kDotLocalhost.size(),
                                               kDotLocalhost.size(), kDotLocalhost) == 0);
}

// Everything after "scheme://" up to the first '/', '?' or '#'.
struct Authority {
  std::string_view host;  // Without the brackets of an IPv6 literal.
  bool ipv6_literal = false;
};

StatusOr<Authority> ParseAuthority(std::string_view authority) {
  if (authority.empty()) return BadUrl("no host");
  if (authority.find('@') != std::string_view::npos) return BadUrl("user-info is not allowed");
  Authority result;
  std::string_view rest;
  if (authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return BadUrl("unterminated IPv6 literal");
    result.host = authority.substr(1, close - 1);
    result.ipv6_literal = true;
    rest = authority.substr(close + 1);
  } else {
    size_t colon = authority.find(':');
    result.host = authority.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
  }
  if (!rest.empty()) {
    if (rest[0] != ':') return BadUrl("unexpected characters after the host");
    std::string_view port = rest.substr(1);
    if (port.size() > 5) return BadUrl("invalid port");
    uint32_t value = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return BadUrl("invalid port");
      value = value * 10 + (c - '0');
    }
    if (!port.empty() && (value == 0 || value > 65535)) return BadUrl("invalid port");
  }
  if (result.host.empty()) return BadUrl("no host");
  if (!result.ipv6_literal) {
    if (result.host.size() > kMaxHostLength + 1) return BadUrl("host name too long");
    if (!std::all_of(result.host.begin(), result.host.end(), IsHostNameChar)) {
      return BadUrl("invalid character in host");
    }
  }
  return result;
}

// --- curl plumbing -----------------------------------------------------------

struct SocketPolicy {
  bool refused = false;
  std::string refused_address;
};

// Called by curl for every address it is about to connect to (after DNS, for
// each address it tries), so the policy applies to what is actually reached.
curl_socket_t OpenSocketCallback(void* clientp, curlsocktype /*purpose*/,
                                 struct curl_sockaddr* address) {
  auto* policy = static_cast<SocketPolicy*>(clientp);
  if (IsRefusedSockaddr(&address->addr)) {
    policy->refused = true;
    policy->refused_address = SockaddrText(&address->addr);
    return CURL_SOCKET_BAD;  // curl fails this address (CURLE_COULDNT_CONNECT).
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

size_t DiscardBody(char* /*data*/, size_t size, size_t nmemb, void* /*user*/) {
  return size * nmemb;
}

// The URL without user-info, query and fragment (they often carry
// credentials), for logs.
std::string UrlForLog(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  size_t host_start = scheme_end + 3;
  size_t at = url.substr(0, url.find('/', host_start)).rfind('@');
  if (at == std::string_view::npos || at < host_start) return std::string(url);
  return std::string(url.substr(0, host_start)) + std::string(url.substr(at + 1));
}

using AttemptResult = WebhookSender::AttemptOutcome;

AttemptResult Attempt(const WebhookOptions& options, const std::string& url,
                      const std::string& body, const std::string& signature) {
  AttemptResult result;
  CurlEasyPtr curl(curl_easy_init());
  if (!curl) {
    result.error = "curl_easy_init failed";
    return result;
  }
  CURL* h = curl.get();
  char errbuf[CURL_ERROR_SIZE] = {0};
  SocketPolicy policy;

  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // Required for multi-threaded use.
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85.0
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(h, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  // A proxy from the environment would be what we connect to, so the address
  // policy would check the proxy instead of the callback host.
  curl_easy_setopt(h, CURLOPT_PROXY, "");
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "coderunner-webhook");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &DiscardBody);
  if (!options.allow_private) {
    curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, &OpenSocketCallback);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &policy);
  }

  curl_slist* raw_headers = curl_slist_append(nullptr, "Content-Type: application/json");
  raw_headers = curl_slist_append(raw_headers, "Expect:");  // No 100-continue round trip.
  if (!signature.empty()) {
    std::string line = std::string(kWebhookSignatureHeader) + ": " + signature;
    raw_headers = curl_slist_append(raw_headers, line.c_str());
  }
  CurlListPtr headers(raw_headers);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));

  CURLcode rc = curl_easy_perform(h);
  if (rc != CURLE_OK) {
    if (policy.refused) {
      // Retrying will not change the policy; DNS might, but not in seconds.
      result.retryable = false;
      result.error = "refused to connect to non-public address " + policy.refused_address;
    } else {
      result.error = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
    }
    return result;
  }
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 200 && status < 300) {
    result.delivered = true;
  } else {
    result.error = "HTTP status " + std::to_string(status);
  }
  return result;
}

}  // namespace

Status ValidateCallbackUrl(std::string_view url, bool allow_private) {
  if (url.size() > kMaxUrlLength) {
    return BadUrl("longer than " + std::to_string(kMaxUrlLength) + " bytes");
  }
  for (char c : url) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return BadUrl("contains whitespace, control or non-ASCII bytes");
    // Some URL parsers end the host at a backslash, others do not; refuse
    // the ambiguity rather than guess which one curl is.
    if (c == '\\') return BadUrl("contains a backslash");
  }
  size_t after_scheme;
  if (HeaderStartsWithNoCase(url, "http://")) {
    after_scheme = 7;
  } else if (HeaderStartsWithNoCase(url, "https://")) {
    after_scheme = 8;
  } else {
    return BadUrl("must be an absolute http:// or https:// URL");
  }
  std::string_view rest = url.substr(after_scheme);
  StatusOr<Authority> authority = ParseAuthority(rest.substr(0, rest.find_first_of("/?#")));
  if (!authority.ok()) return authority.status();
  std::string host(authority->host);

  if (authority->ipv6_literal) {
    in6_addr a6;
    if (inet_pton(AF_INET6, host.c_str(), &a6) != 1) return BadUrl("invalid IPv6 literal");
    if (!allow_private && IsRefusedIpv6(a6)) {
      return BadUrl("host " + host + " is not a public address (loopback, private, reserved...)");
    }
    return OkStatus();
  }
  if (allow_private) return OkStatus();
  if (IsLocalhostName(host)) return BadUrl("host " + host + " is loopback");
  // inet_aton also reads the forms getaddrinfo accepts ("127.1", "0x7f000001",
  // "2130706433"), so those cannot slip past as "names".
  in_addr a4;
  if (inet_aton(host.c_str(), &a4) != 0 && IsRefusedIpv4(ntohl(a4.s_addr))) {
    return BadUrl("host " + host + " is not a public address (loopback, private, reserved...)");
  }
  return OkStatus();
}

WebhookSender::WebhookSender(WebhookOptions options)
    : options_(std::move(options)),
      queue_(options_.max_pending_per_tenant, options_.max_in_flight_per_tenant) {
  CurlGlobalInit();
  int threads = std::max(1, options_.threads);
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

WebhookSender::~WebhookSender() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  idle_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool WebhookSender::Push(const std::string& tenant, Delivery d) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.pending() >= options_.max_pending ||
        !queue_.Push(tenant, std::move(d))) {
      return false;
    }
  }
  // All, not one: threads sleeping out a backoff wait on cv_ too, and waking
  // only one of them would leave the new delivery waiting for an idle thread.
  cv_.notify_all();
  return true;
}

bool WebhookSender::Enqueue(const std::string& tenant, std::string url, std::string json_body) {
  if (Push(tenant, Delivery{std::move(url), std::move(json_body), nullptr})) return true;
  std::lock_guard lock(mu_);
  ++stats_.dropped;
  return false;
}

bool WebhookSender::EnqueueAttempt(const std::string& tenant, std::string url,
                                   std::string json_body, AttemptDone done) {
  return Push(tenant, Delivery{std::move(url), std::move(json_body), std::move(done)});
}

size_t WebhookSender::backlog() const {
  std::lock_guard lock(mu_);
  return queue_.pending() + queue_.in_flight();
}

std::vector<std::string> WebhookSender::SaturatedTenants() const {
  std::lock_guard lock(mu_);
  return queue_.Saturated();
}

WebhookSender::Stats WebhookSender::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

bool WebhookSender::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  auto idle = [this] { return queue_.pending() == 0 && queue_.in_flight() == 0; };
  return idle_cv_.wait_for(lock, timeout, [&] { return stopping_ || idle(); }) && idle();
}

void WebhookSender::Loop() {
  while (true) {
    std::optional<std::pair<std::string, Delivery>> next;
    {
      std::unique_lock lock(mu_);
      // A tenant at its in-flight bound has nothing to take until one of
      // its deliveries is done (which notifies).
      cv_.wait(lock, [&] { return stopping_ || (next = queue_.Pop()).has_value(); });
      if (stopping_) return;  // Pending deliveries are abandoned.
    }
    const std::string& tenant = next->first;
    const Delivery& d = next->second;
    bool delivered = false;
    bool failed = false;
    if (d.done) {
      AttemptOutcome outcome = SignedAttempt(tenant, d);
      delivered = outcome.delivered;
      failed = d.done(outcome);
    } else {
      delivered = DeliverOnce(tenant, d);
      failed = !delivered;
    }
    {
      std::lock_guard lock(mu_);
      if (delivered) ++stats_.delivered;
      if (failed) ++stats_.failed;
      queue_.Done(tenant);
    }
    // Waiting threads may now take this tenant's next delivery.
    cv_.notify_all();
    idle_cv_.notify_all();
  }
}

// Delivers `d` once: the first attempt and up to `retries` more, with
// exponential backoff between them. Logs when it gives up. The backoff ends
// early when the sender is stopping (and the delivery is abandoned).
bool WebhookSender::DeliverOnce(const std::string& tenant, const Delivery& d) {
  // The address policy is enforced at connect time; here only the form.
  if (Status valid = ValidateCallbackUrl(d.url, /*allow_private=*/true); !valid.ok()) {
    spdlog::warn("webhook to {}: not sent: {}", UrlForLog(d.url), valid.message());
    return false;
  }
  std::chrono::milliseconds backoff = options_.first_backoff;
  int attempts = 0;
  AttemptResult result;
  for (int attempt = 0; attempt <= std::max(0, options_.retries); ++attempt) {
    if (attempt > 0) {
      std::unique_lock lock(mu_);
      ++stats_.backing_off;  // Seen by others only once the wait releases mu_.
      const bool stopping = cv_.wait_for(lock, backoff, [this] { return stopping_; });
      --stats_.backing_off;
      if (stopping) {
        spdlog::warn("webhook to {}: abandoned at shutdown after {} attempt(s): {}",
                     UrlForLog(d.url), attempts, result.error);
        return false;
      }
      backoff = std::min(backoff * 2, kMaxBackoff);
    }
    ++attempts;
    result = SignedAttempt(tenant, d);
    if (result.delivered) return true;
    if (!result.retryable) break;
  }
  spdlog::warn("webhook to {}: giving up after {} attempt(s): {}", UrlForLog(d.url), attempts,
               result.error);
  return false;
}

WebhookSender::AttemptOutcome WebhookSender::SignedAttempt(const std::string& tenant,
                                                           const Delivery& d) const {
  if (Status valid = ValidateCallbackUrl(d.url, /*allow_private=*/true); !valid.ok()) {
    return AttemptOutcome{false, false, std::string(valid.message())};
  }
  const std::string key = options_.secret.empty() ? "" : WebhookTenantKey(options_.secret, tenant);
  int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  return Attempt(options_, d.url, d.body, key.empty() ? "" : WebhookSignature(key, now_s, d.body));
}

}  // namespace coderunner::jobs
