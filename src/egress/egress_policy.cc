#include "coderunner/egress/egress_policy.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "ascii_lower.h"
#include "coderunner/common/address_policy.h"
#include "host_port.h"

namespace coderunner::egress {
namespace {

constexpr char kReasonInvalidRule[] = "invalid_egress_rule";

Status BadRule(std::string_view text, std::string_view why) {
  return InvalidArgumentError("egress rule '" + std::string(text) + "': " + std::string(why),
                              kReasonInvalidRule);
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
  EgressRule rule;
  std::string_view host_port = text;
  if (host_port.substr(0, 2) == "*.") {
    rule.wildcard = true;
    host_port.remove_prefix(2);
  }
  auto read = ReadHostPort(host_port, kNoDefaultPort);
  if (!read.ok()) return BadRule(text, read.status().message());
  if (rule.wildcard && read->host.find(':') != std::string::npos) {
    return BadRule(text, "a wildcard needs a host name");
  }
  rule.host = std::move(read->host);
  rule.port = read->port;
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
