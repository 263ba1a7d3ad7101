#include "proxy_request.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "ascii_lower.h"
#include "host_port.h"

namespace coderunner::egress {
namespace {

constexpr char kReasonBadRequest[] = "bad_request";
constexpr int kHttpPort = 80;
// Hop-by-hop headers of the job's request to the proxy, never forwarded;
// Host is the proxy's own.
constexpr std::string_view kDroppedHeaders[] = {
    "host", "connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "upgrade"};

Status BadHead(std::string_view why) {
  return InvalidArgumentError("egress proxy: " + std::string(why), kReasonBadRequest);
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

// "host:port", "[v6]:port", or "host" when `default_port` > 0.
Status ParseAuthority(std::string_view authority, int default_port, ProxyRequest* out) {
  auto read = ReadHostPort(authority, default_port);
  if (!read.ok()) {
    return BadHead(read.status().message() + " in '" + std::string(authority) + "'");
  }
  out->host = std::move(read->host);
  out->port = read->port;
  return OkStatus();
}

std::vector<std::string_view> Lines(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    const size_t end = head.find("\r\n");
    if (end == 0 || end == std::string_view::npos) break;
    lines.push_back(head.substr(0, end));
    head.remove_prefix(end + 2);
  }
  return lines;
}

bool Dropped(std::string_view name) {
  const std::string lower = AsciiLower(name);
  return std::find(std::begin(kDroppedHeaders), std::end(kDroppedHeaders), lower) !=
         std::end(kDroppedHeaders);
}

// The head a plain HTTP request goes upstream with.
StatusOr<std::string> UpstreamHead(const ProxyRequest& r, std::string_view target,
                                   const std::vector<std::string_view>& lines,
                                   std::string_view version) {
  std::string head = r.method + " " + std::string(target) + " " + std::string(version) + "\r\n";
  const bool v6 = r.host.find(':') != std::string::npos;
  head += "Host: " + (v6 ? "[" + r.host + "]" : r.host);
  if (r.port != kHttpPort) head += ":" + std::to_string(r.port);
  head += "\r\n";
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t colon = lines[i].find(':');
    if (colon == std::string_view::npos || colon == 0) return BadHead("a header without a name");
    if (lines[i].find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
      return BadHead("a stray CR, LF or NUL in a header");
    }
    if (!IsToken(lines[i].substr(0, colon))) return BadHead("a bad header name");
    if (Dropped(lines[i].substr(0, colon))) continue;
    head += std::string(lines[i]) + "\r\n";
  }
  return head + "Connection: close\r\n\r\n";
}

}  // namespace

StatusOr<ProxyRequest> ParseProxyRequest(std::string_view head) {
  const std::vector<std::string_view> lines = Lines(head);
  if (lines.empty()) return BadHead("no request line");
  std::string_view line = lines[0];
  const size_t sp1 = line.find(' ');
  const size_t sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp1 == sp2) return BadHead("a malformed request line");
  ProxyRequest r;
  r.method = std::string(line.substr(0, sp1));
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(r.method)) return BadHead("a bad method");
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return BadHead("not HTTP/1.x");
  if (r.method == "CONNECT") {
    r.tunnel = true;
    CR_RETURN_IF_ERROR(ParseAuthority(target, kNoDefaultPort, &r));
    return r;
  }
  constexpr std::string_view kScheme = "http://";
  if (target.size() <= kScheme.size() || AsciiLower(target.substr(0, kScheme.size())) != kScheme) {
    return BadHead("plain requests need an absolute http:// URL; HTTPS goes through CONNECT");
  }
  target.remove_prefix(kScheme.size());
  const size_t slash = std::min(target.find('/'), target.find('?'));
  std::string_view authority = target.substr(0, slash);
  if (authority.find('@') != std::string_view::npos) return BadHead("user info in the URL");
  CR_RETURN_IF_ERROR(ParseAuthority(authority, kHttpPort, &r));
  std::string path = slash == std::string_view::npos ? "/" : std::string(target.substr(slash));
  if (path.front() == '?') path.insert(0, "/");
  if (std::any_of(path.begin(), path.end(),
                  [](unsigned char c) { return c <= ' ' || c == 0x7f; })) {
    return BadHead("a bad path");
  }
  CR_ASSIGN_OR_RETURN(r.upstream_head, UpstreamHead(r, path, lines, version));
  return r;
}

}  // namespace coderunner::egress
