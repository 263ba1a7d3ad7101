// Response headers that keep what the API sends from ever running as a page
// in a browser: the ones every answer carries, and those of a download (bytes
// a job or a caller wrote, served as an attachment that never runs
// same-origin).
#ifndef CODERUNNER_API_RESPONSE_HEADERS_H_
#define CODERUNNER_API_RESPONSE_HEADERS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace httplib {
struct Response;
}

namespace coderunner::api {

// The Content-Security-Policy of every API answer that has none of its own
// (the playground's page sets its own): nothing loads, nothing frames it.
inline constexpr char kApiCsp[] = "default-src 'none'; frame-ancestors 'none'";
// The Content-Security-Policy of a download: opened directly, an HTML or SVG
// file loads nothing and runs in an opaque origin (no script, no cookies).
inline constexpr char kDownloadCsp[] = "default-src 'none'; sandbox";
// The Content-Type of every download, whatever the bytes are.
inline constexpr char kDownloadContentType[] = "application/octet-stream";
// X-Content-Type-Options of every answer: the browser never guesses a type.
inline constexpr char kNoSniff[] = "nosniff";
// The fallback filename of a download whose name keeps no safe character.
inline constexpr char kDownloadFallbackName[] = "download";

// Adds to `res` the headers every answer carries, each only when `res` has
// no such header yet (a route's own wins): X-Content-Type-Options: nosniff,
// Content-Security-Policy: kApiCsp, X-Frame-Options: DENY and
// Referrer-Policy: no-referrer. Called once per answer, after routing.
// Thread-safe (touches only `res`).
void AddApiSecurityHeaders(httplib::Response& res);

// The Content-Disposition of a download of `path` ('/'-separated; only its
// last component names the file):
//   attachment; filename="<fallback>"; filename*=UTF-8''<encoded>
// <encoded> is the name's UTF-8 (ill-formed sequences replaced by U+FFFD)
// percent-encoded per RFC 5987, every byte but ALPHA, DIGIT and "-._~"
// encoded; <fallback> keeps those characters of the name and turns every
// other byte into '_' (kDownloadFallbackName if nothing is left). Neither
// can hold a quote, ';', CR, LF or a non-ASCII byte, whatever the name is.
// Pure; thread-safe.
std::string ContentDisposition(std::string_view path);

// Every header of a download of `path`, in order: Content-Disposition
// (above), X-Content-Type-Options: nosniff and Content-Security-Policy:
// kDownloadCsp. The Content-Type (kDownloadContentType) comes with the body.
// Pure; thread-safe.
std::vector<std::pair<std::string, std::string>> DownloadHeaders(std::string_view path);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_RESPONSE_HEADERS_H_
