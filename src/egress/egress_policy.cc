#include "coderunner/egress/egress_policy.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "ascii_lower.h"
#include "coderunner/common/address_policy.h"

namespace coderunner::egress {
namespace {

constexpr char kReasonInvalidRule[] = "invalid_egress_rule";
// A DNS name is at most 253 characters (RFC 1035, without the final dot).
constexpr size_t kMaxHostName = 253;

Status BadRule(std::string_view text, std::string_view why) {
  return InvalidArgumentError("egress rule '" + std::string(text) + "': " + std::string(why),
                              kReasonInvalidRule);
}

// Letters, digits, '-' and '.', no empty label: a DNS name as written.
bool IsHostName(std::string_view host) {
  if (host.empty() || host.size() > kMaxHostName || host.front() == '.' || host.back() == '.') {
    return false;
  }
  char last = '.';
  for (char c : host) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
    if (!ok || (c == '.' && last == '.')) return false;
    last = c;
  }
  return true;
}

bool IsIpv6Literal(const std::string& host) {
  in6_addr a{};
  return inet_pton(AF_INET6, host.c_str(), &a) == 1;
}

bool InRange(const AddressRange& r, const uint8_t* bytes) {
  const int whole = r.prefix / 8;
  if (std::memcmp(r.bytes.data(), bytes, static_cast<size_t>(whole)) != 0) return false;
  const int rest = r.prefix % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<uint8_t>(0xFF << (8 - rest));
  return (r.bytes[whole] & mask) == (bytes[whole] & mask);
}

}  // namespace

StatusOr<EgressRule> ParseEgressRule(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return BadRule(text, "must be host:port");
  std::string_view host = text.substr(0, colon);
  std::string_view port = text.substr(colon + 1);
  EgressRule rule;
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return BadRule(text, "the port must be a number");
  }
  rule.port = std::stoi(std::string(port));
  if (rule.port < 1 || rule.port > 65535) return BadRule(text, "the port must be 1-65535");
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    rule.host = AsciiLower(host.substr(1, host.size() - 2));
    if (!IsIpv6Literal(rule.host)) return BadRule(text, "not an IPv6 address in brackets");
    return rule;
  }
  if (host.substr(0, 2) == "*.") {
    rule.wildcard = true;
    host.remove_prefix(2);
  }
  rule.host = AsciiLower(host);
  if (!IsHostName(rule.host)) return BadRule(text, "not a host name or address");
  return rule;
}

StatusOr<AddressRange> ParseAddressRange(std::string_view text) {
  const size_t slash = text.find('/');
  const std::string address(text.substr(0, slash));
  AddressRange r;
  if (inet_pton(AF_INET, address.c_str(), r.bytes.data()) == 1) {
    r.family = AF_INET;
    r.prefix = 32;
  } else if (inet_pton(AF_INET6, address.c_str(), r.bytes.data()) == 1) {
    r.family = AF_INET6;
    r.prefix = 128;
  } else {
    return BadRule(text, "not an address or block (10.0.0.0/8, fd00::/8)");
  }
  if (slash != std::string_view::npos) {
    std::string_view bits = text.substr(slash + 1);
    const int most = r.prefix;
    if (bits.empty() || bits.size() > 3 ||
        !std::all_of(bits.begin(), bits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return BadRule(text, "the prefix must be a number");
    }
    r.prefix = std::stoi(std::string(bits));
    if (r.prefix > most) return BadRule(text, "the prefix is too long");
  }
  return r;
}

bool AllowsHost(const EgressPolicy& policy, std::string_view host, int port) {
  const std::string name = AsciiLower(host);
  for (const EgressRule& rule : policy.allow) {
    if (rule.port != port) continue;
    if (!rule.wildcard && name == rule.host) return true;
    if (rule.wildcard && name.size() > rule.host.size() + 1 &&
        name.compare(name.size() - rule.host.size(), rule.host.size(), rule.host) == 0 &&
        name[name.size() - rule.host.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

bool MayConnectTo(const EgressPolicy& policy, const struct sockaddr* sa) {
  const uint8_t* bytes = nullptr;
  if (sa->sa_family == AF_INET) {
    bytes = reinterpret_cast<const uint8_t*>(&reinterpret_cast<const sockaddr_in*>(sa)->sin_addr);
  } else if (sa->sa_family == AF_INET6) {
    bytes = reinterpret_cast<const uint8_t*>(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  } else {
    return false;
  }
  if (!IsRefusedSockaddr(sa)) return true;
  return std::any_of(
      policy.private_ranges.begin(), policy.private_ranges.end(),
      [&](const AddressRange& r) { return r.family == sa->sa_family && InRange(r, bytes); });
}

}  // namespace coderunner::egress
