// The libcurl setup both relays to an owner node share (owner_forwarder.h:
// CurlRelay, CurlStreamRelay): the request's headers and body, the options
// that keep it on the owner's path and off any proxy, the owner's headers
// read back, and a failed transfer as a Status. Private to src/api.
#ifndef CODERUNNER_API_RELAY_CURL_H_
#define CODERUNNER_API_RELAY_CURL_H_

#include <curl/curl.h>

#include <memory>

#include "coderunner/common/curl_handle.h"
#include "coderunner/common/status.h"
#include "owner_forwarder.h"

namespace coderunner::api {

struct CurlMimeDeleter {
  void operator()(curl_mime* m) const { curl_mime_free(m); }
};
using CurlMimePtr = std::unique_ptr<curl_mime, CurlMimeDeleter>;

// What a relay's easy handle needs to outlive it.
struct RelayTransfer {
  CurlEasyPtr easy;
  CurlListPtr headers;
  CurlMimePtr mime;  // A multipart body's parts (null for any other body).
};

// An easy handle for `req` (which must outlive the transfer: its URL and
// body are not copied), set up but for its body's write callback; the
// owner's Content-Type and kRelayedHeaders go into `*out` as they arrive.
// InternalError kReasonForwardFailed when libcurl cannot make one.
StatusOr<RelayTransfer> NewRelayTransfer(const RelayRequest& req, RelayResponse* out);

// A transfer of `req` that ended with `rc` (not CURLE_OK): Unavailable
// kReasonOwnerUnreachable when the owner could not be reached at all,
// DeadlineExceeded past req.timeout_ms, else Unavailable, both
// kReasonForwardFailed.
Status RelayFailure(CURLcode rc, const RelayRequest& req);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_RELAY_CURL_H_
