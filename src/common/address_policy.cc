#include "coderunner/common/address_policy.h"

#include <arpa/inet.h>

#include <cstring>

namespace coderunner {

bool IsRefusedIpv4(uint32_t addr) {
  auto in = [addr](uint32_t net, int prefix) {
    uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
    return (addr & mask) == net;
  };
  return in(0x00000000, 8) ||   // 0.0.0.0/8: "this network"; 0.0.0.0 reaches the host.
         in(0x0A000000, 8) ||   // 10.0.0.0/8
         in(0x64400000, 10) ||  // 100.64.0.0/10: shared (CGNAT); some clouds' metadata.
         in(0x7F000000, 8) ||   // 127.0.0.0/8
         in(0xA9FE0000, 16) ||  // 169.254.0.0/16: link-local, cloud metadata.
         in(0xAC100000, 12) ||  // 172.16.0.0/12
         in(0xC0A80000, 16);    // 192.168.0.0/16
}

bool IsRefusedIpv6(const in6_addr& a) {
  const uint8_t* b = a.s6_addr;
  static constexpr uint8_t kZero[16] = {};
  // ::/96 holds :: (unspecified), ::1 (loopback) and the deprecated
  // IPv4-compatible ::a.b.c.d; all are refused.
  if (std::memcmp(b, kZero, 12) == 0) return true;
  auto embedded_v4 = [b] {
    return (uint32_t{b[12]} << 24) | (uint32_t{b[13]} << 16) | (uint32_t{b[14]} << 8) | b[15];
  };
  // ::ffff:a.b.c.d (IPv4-mapped): the IPv4 rules apply.
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(b, kMapped, 12) == 0) return IsRefusedIpv4(embedded_v4());
  // 64:ff9b::/96 (NAT64): the IPv4 rules apply to the translated address.
  static constexpr uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(b, kNat64, 12) == 0) return IsRefusedIpv4(embedded_v4());
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return true;  // fe80::/10 link-local.
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return true;  // fec0::/10 old site-local.
  if ((b[0] & 0xfe) == 0xfc) return true;                  // fc00::/7 unique local.
  return false;
}

bool IsRefusedSockaddr(const struct sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    const auto* sin = reinterpret_cast<const sockaddr_in*>(sa);
    return IsRefusedIpv4(ntohl(sin->sin_addr.s_addr));
  }
  if (sa->sa_family == AF_INET6) {
    return IsRefusedIpv6(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  }
  return true;
}

std::string SockaddrText(const struct sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (sa->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof(buf));
  } else if (sa->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, buf, sizeof(buf));
  } else {
    return "address family " + std::to_string(sa->sa_family);
  }
  return buf;
}

}  // namespace coderunner
