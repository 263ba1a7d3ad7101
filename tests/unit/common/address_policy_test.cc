// The outbound address policy (coderunner/common/address_policy.h): which
// IPv4 and IPv6 addresses a caller-named host may resolve to, table-driven.
#include "coderunner/common/address_policy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace coderunner {
namespace {

struct Case {
  const char* address;
  bool refused;
  const char* why;
};

// Parses `text` (IPv4 or IPv6) into `storage`; false if it is neither.
bool ToSockaddr(const char* text, sockaddr_storage& storage) {
  std::memset(&storage, 0, sizeof(storage));
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    return true;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    return true;
  }
  return false;
}

void ExpectPolicy(const Case* begin, const Case* end) {
  for (const Case* c = begin; c != end; ++c) {
    SCOPED_TRACE(std::string(c->address) + ": " + c->why);
    sockaddr_storage storage;
    ASSERT_TRUE(ToSockaddr(c->address, storage));
    const auto* sa = reinterpret_cast<const sockaddr*>(&storage);
    EXPECT_EQ(IsRefusedSockaddr(sa), c->refused);
    EXPECT_EQ(SockaddrText(sa).empty(), false);
  }
}

TEST(AddressPolicyTest, Ipv4) {
  const Case cases[] = {
      {"0.0.0.0", true, "this network"},
      {"10.1.2.3", true, "private"},
      {"100.64.0.1", true, "shared (CGNAT)"},
      {"127.0.0.1", true, "loopback"},
      {"169.254.169.254", true, "link-local, cloud metadata"},
      {"172.16.0.1", true, "private"},
      {"172.31.255.255", true, "private"},
      {"192.168.1.1", true, "private"},
      {"192.0.0.1", true, "IETF protocol assignments"},
      {"192.0.0.170", true, "NAT64 discovery"},
      {"192.0.2.1", true, "documentation (TEST-NET-1)"},
      {"198.18.0.1", true, "benchmarking"},
      {"198.19.255.254", true, "benchmarking"},
      {"198.51.100.7", true, "documentation (TEST-NET-2)"},
      {"203.0.113.9", true, "documentation (TEST-NET-3)"},
      {"224.0.0.1", true, "multicast"},
      {"239.255.255.250", true, "multicast"},
      {"240.0.0.1", true, "reserved"},
      {"255.255.255.255", true, "limited broadcast"},
      {"1.1.1.1", false, "public"},
      {"8.8.8.8", false, "public"},
      {"172.32.0.1", false, "public, just past 172.16.0.0/12"},
      {"192.0.1.1", false, "public, just past 192.0.0.0/24"},
      {"198.17.255.255", false, "public, just before 198.18.0.0/15"},
      {"198.20.0.1", false, "public, just past 198.18.0.0/15"},
      {"223.255.255.254", false, "public, just before multicast"},
  };
  ExpectPolicy(std::begin(cases), std::end(cases));
}

TEST(AddressPolicyTest, Ipv6) {
  const Case cases[] = {
      {"::", true, "unspecified"},
      {"::1", true, "loopback"},
      {"fe80::1", true, "link-local"},
      {"fec0::1", true, "old site-local"},
      {"fd00::1", true, "unique local"},
      {"ff02::1", true, "multicast"},
      {"2001:db8::1", true, "documentation"},
      {"100::1", true, "discard-only"},
      {"2001:2::1", true, "benchmarking"},
      {"3fff::1", true, "documentation (RFC 9637)"},
      {"2606:4700:4700::1111", false, "public"},
      {"2a00:1450:4001:80b::200e", false, "public"},
  };
  ExpectPolicy(std::begin(cases), std::end(cases));
}

// An IPv6 address that carries an IPv4 address (mapped, compatible,
// translated, NAT64, 6to4, Teredo) is refused when that address is.
TEST(AddressPolicyTest, Ipv6FormsOfIpv4Addresses) {
  const Case cases[] = {
      {"::ffff:127.0.0.1", true, "IPv4-mapped loopback"},
      {"::ffff:169.254.169.254", true, "IPv4-mapped metadata"},
      {"::ffff:198.18.0.1", true, "IPv4-mapped benchmarking"},
      {"::ffff:8.8.8.8", false, "IPv4-mapped public"},
      {"::127.0.0.1", true, "IPv4-compatible (deprecated)"},
      {"::8.8.8.8", true, "IPv4-compatible (deprecated), even public"},
      {"::ffff:0:127.0.0.1", true, "IPv4-translated loopback"},
      {"::ffff:0:8.8.8.8", false, "IPv4-translated public"},
      {"64:ff9b::127.0.0.1", true, "NAT64 loopback"},
      {"64:ff9b::10.0.0.1", true, "NAT64 private"},
      {"64:ff9b::8.8.8.8", false, "NAT64 public"},
      {"64:ff9b:1::a00:1", true, "local-use NAT64 (RFC 8215)"},
      {"2002:7f00:0001::", true, "6to4 of 127.0.0.1"},
      {"2002:a9fe:a9fe::1", true, "6to4 of 169.254.169.254"},
      {"2002:c0a8:0101:1::1", true, "6to4 of 192.168.1.1"},
      {"2002:c612:0001::", true, "6to4 of 198.18.0.1"},
      {"2002:0808:0808::1", false, "6to4 of 8.8.8.8"},
      // Teredo: the client's IPv4 address is the last 32 bits, inverted.
      {"2001:0:4136:e378:8000:63bf:80ff:fffe", true, "Teredo of 127.0.0.1"},
      {"2001:0:4136:e378:8000:63bf:f5ff:fefe", true, "Teredo of 10.0.1.1"},
      {"2001:0:4136:e378:8000:63bf:5601:5601", true, "Teredo of 169.254.169.254"},
      {"2001:0:4136:e378:8000:63bf:f7f7:f7f7", false, "Teredo of 8.8.8.8"},
      {"2001:0:7f00:1:8000:63bf:f7f7:f7f7", true, "Teredo of 8.8.8.8 through server 127.0.0.1"},
  };
  ExpectPolicy(std::begin(cases), std::end(cases));
}

TEST(AddressPolicyTest, OtherFamiliesAreRefused) {
  sockaddr_storage storage;
  std::memset(&storage, 0, sizeof(storage));
  storage.ss_family = AF_UNIX;
  EXPECT_TRUE(IsRefusedSockaddr(reinterpret_cast<const sockaddr*>(&storage)));
}

}  // namespace
}  // namespace coderunner
