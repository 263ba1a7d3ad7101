// HostPort: the one reader of "host:port" in src/egress, so that a rule of
// the allowlist and the authority a job's request names are read alike.
// Internal to src/egress.
#ifndef CODERUNNER_EGRESS_HOST_PORT_H_
#define CODERUNNER_EGRESS_HOST_PORT_H_

#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::egress {

struct HostPort {
  std::string host;  // Lower case; an IPv6 address without its brackets.
  int port = 0;      // 1-65535.
};

// ReadHostPort's `default_port` when the text must name its port (an
// allowlist rule, a CONNECT).
inline constexpr int kNoDefaultPort = 0;

// Reads "host:port" or "[v6]:port"; "host" or "[v6]" alone when
// `default_port` > 0, which is then the port. The host is a DNS name as
// written (letters, digits, '-' and '.', no empty label, at most 253
// characters), which includes IPv4 literals, or an IPv6 address in
// brackets. A failure is InvalidArgument whose message says what is wrong,
// for the caller to wrap. Pure.
StatusOr<HostPort> ReadHostPort(std::string_view text, int default_port);

}  // namespace coderunner::egress

#endif  // CODERUNNER_EGRESS_HOST_PORT_H_
