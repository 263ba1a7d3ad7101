// ProxyRequest: the head of one request a job sent to the egress proxy,
// read as untrusted text. "CONNECT host:port HTTP/1.1" opens a tunnel
// (HTTPS); "GET http://host[:port]/path HTTP/1.1" (absolute form, any
// method) is plain HTTP, forwarded in origin form with the proxy's own
// Host and "Connection: close", so one connection carries one request.
#ifndef CODERUNNER_EGRESS_PROXY_REQUEST_H_
#define CODERUNNER_EGRESS_PROXY_REQUEST_H_

#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::egress {

// The longest request head (request line and headers) the proxy reads.
inline constexpr size_t kMaxRequestHead = 16 << 10;

struct ProxyRequest {
  std::string method;  // "CONNECT", "GET", ...
  std::string host;    // As named, lower case; IPv6 without brackets.
  int port = 0;
  bool tunnel = false;  // CONNECT.
  // Plain HTTP: the head to send upstream, ending in "\r\n\r\n".
  std::string upstream_head;
};

// Parses `head` (through its "\r\n\r\n"). InvalidArgument "bad_request"
// naming what is wrong: a malformed request line, an origin-form target
// (the job spoke to the proxy as to a server), a scheme other than http,
// user info in the URL, a bad host or port, a header without a colon.
// Pure.
StatusOr<ProxyRequest> ParseProxyRequest(std::string_view head);

}  // namespace coderunner::egress

#endif  // CODERUNNER_EGRESS_PROXY_REQUEST_H_
