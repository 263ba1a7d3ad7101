#include "host_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>

#include "ascii_lower.h"

namespace coderunner::egress {
namespace {

// A DNS name is at most 253 characters (RFC 1035, without the final dot).
constexpr size_t kMaxHostName = 253;
// "65535".
constexpr size_t kMaxPortDigits = 5;

Status Bad(std::string_view why) { return InvalidArgumentError(std::string(why)); }

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

}  // namespace

StatusOr<HostPort> ReadHostPort(std::string_view text, int default_port) {
  std::string_view host = text;
  std::string_view port;
  bool has_port = false;
  const bool bracketed = !text.empty() && text.front() == '[';
  if (bracketed) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return Bad("an unclosed '[' in the host");
    host = text.substr(1, close - 1);
    const std::string_view rest = text.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return Bad("junk after the IPv6 address");
    has_port = !rest.empty();
    if (has_port) port = rest.substr(1);
  } else if (const size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    has_port = true;
  }
  HostPort out;
  out.host = AsciiLower(host);
  if (bracketed ? !IsIpv6Literal(out.host) : !IsHostName(out.host)) {
    return Bad(bracketed ? "not an IPv6 address in brackets" : "not a host name or address");
  }
  if (!has_port) {
    if (default_port <= 0) return Bad("must be host:port");
    out.port = default_port;
    return out;
  }
  if (port.empty() || port.size() > kMaxPortDigits ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Bad("the port must be a number");
  }
  out.port = std::stoi(std::string(port));
  if (out.port < 1 || out.port > 65535) return Bad("the port must be 1-65535");
  return out;
}

}  // namespace coderunner::egress
