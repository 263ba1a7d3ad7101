#include "coderunner/common/address_policy.h"

#include <arpa/inet.h>

#include <cstring>

namespace coderunner {
namespace {

// An address block: `prefix` leading bits of `net`.
struct Ipv4Block {
  uint32_t net;  // Host byte order.
  int prefix;
};

// Every IPv4 block that is not public unicast (IANA's special-purpose
// registry, the blocks not globally reachable, and multicast).
constexpr Ipv4Block kRefusedIpv4[] = {
    {0x00000000, 8},   // 0.0.0.0/8: "this network"; 0.0.0.0 reaches the host.
    {0x0A000000, 8},   // 10.0.0.0/8: private.
    {0x64400000, 10},  // 100.64.0.0/10: shared (CGNAT); some clouds' metadata.
    {0x7F000000, 8},   // 127.0.0.0/8: loopback.
    {0xA9FE0000, 16},  // 169.254.0.0/16: link-local, cloud metadata.
    {0xAC100000, 12},  // 172.16.0.0/12: private.
    {0xC0000000, 24},  // 192.0.0.0/24: IETF protocol assignments.
    {0xC0000200, 24},  // 192.0.2.0/24: documentation (TEST-NET-1).
    {0xC0A80000, 16},  // 192.168.0.0/16: private.
    {0xC6120000, 15},  // 198.18.0.0/15: benchmarking.
    {0xC6336400, 24},  // 198.51.100.0/24: documentation (TEST-NET-2).
    {0xCB007100, 24},  // 203.0.113.0/24: documentation (TEST-NET-3).
    {0xE0000000, 4},   // 224.0.0.0/4: multicast.
    {0xF0000000, 4},   // 240.0.0.0/4: reserved, and 255.255.255.255 (broadcast).
};

// An IPv6 block: `prefix` leading bits of `net`.
struct Ipv6Block {
  uint8_t net[16];
  int prefix;
};

// IPv6 blocks refused whole (not public unicast).
constexpr Ipv6Block kRefusedIpv6[] = {
    // ::/96: :: (unspecified), ::1 (loopback), the deprecated IPv4-compatible ::a.b.c.d.
    {{}, 96},
    {{0x01, 0x00}, 64},                          // 100::/64: discard-only.
    {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48},  // 64:ff9b:1::/48: local-use NAT64.
    {{0x20, 0x01, 0x00, 0x02}, 48},              // 2001:2::/48: benchmarking.
    {{0x20, 0x01, 0x0d, 0xb8}, 32},              // 2001:db8::/32: documentation.
    {{0x3f, 0xff}, 20},                          // 3fff::/20: documentation.
    {{0xfc}, 7},                                 // fc00::/7: unique local.
    {{0xfe, 0x80}, 10},                          // fe80::/10: link-local.
    {{0xfe, 0xc0}, 10},                          // fec0::/10: old site-local.
    {{0xff}, 8},                                 // ff00::/8: multicast.
};

// IPv6 blocks that carry an IPv4 address in their last 32 bits, to which
// the IPv4 rules apply.
constexpr Ipv6Block kIpv4InLast32Bits[] = {
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 96},        // ::ffff:0:0/96: IPv4-mapped.
    {{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0}, 96},        // ::ffff:0:0:0/96: translated.
    {{0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}, 96},  // 64:ff9b::/96: NAT64.
};

// 2002::/16, 6to4: the IPv4 address of the site is bits 16 to 47.
constexpr Ipv6Block kSixToFour = {{0x20, 0x02}, 16};
// 2001::/32, Teredo: the server's IPv4 address is bits 32 to 63, the
// client's the last 32 bits inverted.
constexpr Ipv6Block kTeredo = {{0x20, 0x01, 0x00, 0x00}, 32};

bool InIpv4Block(uint32_t addr, const Ipv4Block& block) {
  const uint32_t mask = block.prefix == 0 ? 0 : ~uint32_t{0} << (32 - block.prefix);
  return (addr & mask) == block.net;
}

bool InIpv6Block(const uint8_t* addr, const Ipv6Block& block) {
  const int whole = block.prefix / 8;
  if (std::memcmp(addr, block.net, whole) != 0) return false;
  const int bits = block.prefix % 8;
  if (bits == 0) return true;
  const auto mask = static_cast<uint8_t>(0xff << (8 - bits));
  return (addr[whole] & mask) == (block.net[whole] & mask);
}

// The 32 bits of `addr` from byte `at`, in host byte order.
uint32_t Ipv4At(const uint8_t* addr, int at) {
  return (uint32_t{addr[at]} << 24) | (uint32_t{addr[at + 1]} << 16) |
         (uint32_t{addr[at + 2]} << 8) | addr[at + 3];
}

}  // namespace

bool IsRefusedIpv4(uint32_t addr) {
  for (const Ipv4Block& block : kRefusedIpv4) {
    if (InIpv4Block(addr, block)) return true;
  }
  return false;
}

bool IsRefusedIpv6(const in6_addr& a) {
  const uint8_t* b = a.s6_addr;
  for (const Ipv6Block& block : kRefusedIpv6) {
    if (InIpv6Block(b, block)) return true;
  }
  for (const Ipv6Block& block : kIpv4InLast32Bits) {
    if (InIpv6Block(b, block)) return IsRefusedIpv4(Ipv4At(b, 12));
  }
  if (InIpv6Block(b, kSixToFour)) return IsRefusedIpv4(Ipv4At(b, 2));
  if (InIpv6Block(b, kTeredo)) {
    return IsRefusedIpv4(Ipv4At(b, 4)) || IsRefusedIpv4(~Ipv4At(b, 12));
  }
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
