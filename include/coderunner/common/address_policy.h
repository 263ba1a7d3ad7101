// The address policy of outbound connections to hosts a caller names (a
// webhook's callback URL): only public unicast IPv4 and IPv6 addresses are
// reached. Checked on a literal host and again on every address actually
// connected to, so DNS cannot smuggle a refused one in.
#ifndef CODERUNNER_COMMON_ADDRESS_POLICY_H_
#define CODERUNNER_COMMON_ADDRESS_POLICY_H_

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace coderunner {

// True when `addr` (host byte order) is not a public unicast IPv4 address:
// "this network" (0/8), private (10/8, 172.16/12, 192.168/16), shared
// (100.64/10), loopback (127/8), link-local (169.254/16), IETF protocol
// assignments (192.0.0/24), documentation (192.0.2/24, 198.51.100/24,
// 203.0.113/24), benchmarking (198.18/15), multicast (224/4), reserved and
// broadcast (240/4). Pure.
bool IsRefusedIpv4(uint32_t addr);

// True when `addr` is not a public unicast IPv6 address: ::/96 (unspecified,
// loopback, IPv4-compatible), discard-only (100::/64), local-use NAT64
// (64:ff9b:1::/48), benchmarking (2001:2::/48), documentation
// (2001:db8::/32, 3fff::/20), unique local (fc00::/7), link-local
// (fe80::/10), site-local (fec0::/10), multicast (ff00::/8); or when it
// carries a refused IPv4 address: IPv4-mapped (::ffff:0:0/96), translated
// (::ffff:0:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16, bits 16-47),
// Teredo (2001::/32: its server, bits 32-63, or its client, the last 32 bits
// inverted). Pure.
bool IsRefusedIpv6(const in6_addr& addr);

// IsRefusedIpv4 / IsRefusedIpv6 by family; any other family is refused.
bool IsRefusedSockaddr(const struct sockaddr* sa);

// `sa` as text ("10.0.0.1", "::1"), for messages.
std::string SockaddrText(const struct sockaddr* sa);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_ADDRESS_POLICY_H_
