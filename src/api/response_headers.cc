#include "response_headers.h"

#include <httplib.h>

#include "coderunner/common/utf8.h"
#include "uri_unreserved.h"

namespace coderunner::api {
namespace {

void SetIfAbsent(httplib::Response& res, const char* name, const char* value) {
  if (!res.has_header(name)) res.set_header(name, value);
}

}  // namespace

void AddApiSecurityHeaders(httplib::Response& res) {
  SetIfAbsent(res, "X-Content-Type-Options", kNoSniff);
  SetIfAbsent(res, "Content-Security-Policy", kApiCsp);
  SetIfAbsent(res, "X-Frame-Options", "DENY");
  SetIfAbsent(res, "Referrer-Policy", "no-referrer");
}

std::string ContentDisposition(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string name = SanitizeUtf8(slash == std::string_view::npos ? path : path.substr(slash + 1));
  if (name.empty()) name = kDownloadFallbackName;
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string fallback;
  std::string encoded;
  bool kept_any = false;
  for (char ch : name) {
    auto c = static_cast<unsigned char>(ch);
    if (IsUriUnreserved(c)) {
      fallback.push_back(ch);
      encoded.push_back(ch);
      kept_any = true;
      continue;
    }
    fallback.push_back('_');
    encoded += {'%', kHex[c >> 4], kHex[c & 0xF]};
  }
  if (!kept_any) fallback = kDownloadFallbackName;
  return "attachment; filename=\"" + fallback + "\"; filename*=UTF-8''" + encoded;
}

std::vector<std::pair<std::string, std::string>> DownloadHeaders(std::string_view path) {
  return {{"Content-Disposition", ContentDisposition(path)},
          {"X-Content-Type-Options", kNoSniff},
          {"Content-Security-Policy", kDownloadCsp}};
}

}  // namespace coderunner::api
