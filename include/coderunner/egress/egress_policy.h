// EgressPolicy: where a job with "network": "allowlist" may go through the
// service's proxy (egress_proxy.h), and how much it may move. The job itself
// never gets a network interface beyond loopback.
#ifndef CODERUNNER_EGRESS_EGRESS_POLICY_H_
#define CODERUNNER_EGRESS_EGRESS_POLICY_H_

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::egress {

// Where a job's proxy listens, inside its network namespace
// (HTTP_PROXY=http://127.0.0.1:3128): squid's port, the one clients expect.
inline constexpr int kEgressProxyPort = 3128;

// One allowed destination: a host name (lower case) or an IP literal, and
// a port. A wildcard rule ("*.example.com") matches every name below the
// suffix, never the suffix itself.
struct EgressRule {
  std::string host;  // Without "*." when `wildcard`; IPv6 without brackets.
  int port = 0;
  bool wildcard = false;
};

// A block of addresses: `prefix` leading bits of `bytes` (4 for IPv4, 16
// for IPv6).
struct AddressRange {
  int family = AF_INET;
  std::array<uint8_t, 16> bytes{};
  int prefix = 0;
};

struct EgressPolicy {
  std::vector<EgressRule> allow;
  // Private, loopback and link-local blocks (and any other that is not
  // public unicast, common/address_policy.h) an allowed host may still
  // resolve to. Empty: none.
  std::vector<AddressRange> private_ranges;
  int64_t max_bytes = 64LL << 20;  // Both ways, all connections of one job.
  int max_connections = 16;        // Open at once; more are refused.
  int64_t connect_timeout_ms = 5000;
  int64_t idle_timeout_ms = 30000;  // A connection silent both ways this long ends.
  int max_log_entries = 200;        // Requests logged; more are counted.
};

// "host:port", "*.suffix:port" or "[v6]:port". InvalidArgument
// "invalid_egress_rule" naming the text otherwise. Pure.
StatusOr<EgressRule> ParseEgressRule(std::string_view text);

// "10.0.0.0/8", "fd00::/8", or one address ("127.0.0.1": a /32).
// InvalidArgument "invalid_egress_rule" otherwise. Pure.
StatusOr<AddressRange> ParseAddressRange(std::string_view text);

// Whether `host` (as the job named it, any case) and `port` match a rule.
// Pure.
bool AllowsHost(const EgressPolicy& policy, std::string_view host, int port);

// Whether the proxy may connect to `sa`: a public unicast address, or one
// within policy.private_ranges. Pure.
bool MayConnectTo(const EgressPolicy& policy, const struct sockaddr* sa);

}  // namespace coderunner::egress

#endif  // CODERUNNER_EGRESS_EGRESS_POLICY_H_
