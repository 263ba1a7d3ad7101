// Owning handles for libcurl, and its one-time global initialisation, shared
// by every libcurl user (engine transport, webhooks, the LLM client, the CLI).
#ifndef CODERUNNER_COMMON_CURL_HANDLE_H_
#define CODERUNNER_COMMON_CURL_HANDLE_H_

#include <curl/curl.h>

#include <memory>

namespace coderunner {

// Calls curl_global_init once per process; later calls return at once.
// curl_global_init itself is not thread-safe, this is. Call it before the
// first curl_easy_init.
void CurlGlobalInit();

struct CurlEasyDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct CurlListDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
// An easy handle and a header list, freed when they go out of scope.
using CurlEasyPtr = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlListPtr = std::unique_ptr<curl_slist, CurlListDeleter>;

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_CURL_HANDLE_H_
