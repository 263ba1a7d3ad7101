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
// "this network", private, shared (CGNAT), loopback, link-local. Pure.
bool IsRefusedIpv4(uint32_t addr);

// True when `addr` is not a public unicast IPv6 address, or embeds a
// refused IPv4 address (IPv4-mapped, NAT64). Pure.
bool IsRefusedIpv6(const in6_addr& addr);

// IsRefusedIpv4 / IsRefusedIpv6 by family; any other family is refused.
bool IsRefusedSockaddr(const struct sockaddr* sa);

// `sa` as text ("10.0.0.1", "::1"), for messages.
std::string SockaddrText(const struct sockaddr* sa);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_ADDRESS_POLICY_H_
