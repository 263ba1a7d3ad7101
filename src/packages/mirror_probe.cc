#include "mirror_probe.h"

#include "coderunner/common/curl_handle.h"
#include "coderunner/packages/package_installer.h"

namespace coderunner::packages {
namespace {

constexpr long kProbeTimeoutMs = 5000;
// An index page is small; a probe reads no more of it than this.
constexpr size_t kMaxProbeBytes = 1 << 20;

size_t Discard(char*, size_t size, size_t n, void* seen) {
  auto* total = static_cast<size_t*>(seen);
  *total += size * n;
  return *total > kMaxProbeBytes ? 0 : size * n;
}

}  // namespace

std::string WithoutCredentials(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  size_t host = scheme + 3;
  size_t path = url.find('/', host);
  size_t at = url.rfind('@', path == std::string::npos ? std::string::npos : path);
  if (at == std::string::npos || at < host) return url;
  return url.substr(0, host) + url.substr(at + 1);
}

Status ProbeMirror(const std::string& index_url) {
  CurlGlobalInit();
  CurlEasyPtr curl(curl_easy_init());
  if (!curl) return UnavailableError("cannot reach the package index", kReasonMirrorUnavailable);
  size_t seen = 0;
  curl_easy_setopt(curl.get(), CURLOPT_URL, index_url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, kProbeTimeoutMs);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, Discard);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &seen);
  CURLcode rc = curl_easy_perform(curl.get());
  long http = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &http);
  if ((rc == CURLE_OK || rc == CURLE_WRITE_ERROR) && http >= 200 && http < 300) return OkStatus();
  std::string why = rc != CURLE_OK && rc != CURLE_WRITE_ERROR ? curl_easy_strerror(rc)
                                                              : "HTTP " + std::to_string(http);
  return UnavailableError(
      "the package index " + WithoutCredentials(index_url) + " does not answer (" + why + ")",
      kReasonMirrorUnavailable);
}

}  // namespace coderunner::packages
