// What a job sends the egress proxy is read as untrusted text: a tunnel
// needs host:port, plain HTTP an absolute http:// URL, and the head that
// goes upstream carries the proxy's Host and "Connection: close" only.
#include "egress/proxy_request.h"

#include <gtest/gtest.h>

#include <string>

namespace coderunner::egress {
namespace {

TEST(ProxyRequestTest, TunnelsAndAbsoluteUrlsAreRead) {
  const struct {
    const char* head;
    const char* method;
    const char* host;
    int port;
    bool tunnel;
  } kCases[] = {
      {"CONNECT api.example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n", "CONNECT", "api.example.com", 443,
       true},
      {"CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", "CONNECT", "::1", 8443, true},
      {"GET http://Example.com/a?b=1 HTTP/1.1\r\n\r\n", "GET", "example.com", 80, false},
      {"POST http://example.com:8080 HTTP/1.0\r\n\r\n", "POST", "example.com", 8080, false},
      {"GET http://[::1]/ HTTP/1.1\r\n\r\n", "GET", "::1", 80, false},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.head);
    auto r = ParseProxyRequest(c.head);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->method, c.method);
    EXPECT_EQ(r->host, c.host);
    EXPECT_EQ(r->port, c.port);
    EXPECT_EQ(r->tunnel, c.tunnel);
  }
}

TEST(ProxyRequestTest, ThePlainHeadGoesUpstreamInOriginFormWithTheProxysHost) {
  auto r = ParseProxyRequest(
      "GET http://example.com:8080/p?q HTTP/1.1\r\nHost: evil.net\r\nAccept: */*\r\n"
      "Proxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\nX-A: 1\r\n\r\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->upstream_head,
            "GET /p?q HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nX-A: 1\r\n"
            "Connection: close\r\n\r\n");
  EXPECT_EQ(ParseProxyRequest("GET http://a.b?x HTTP/1.1\r\n\r\n")->upstream_head,
            "GET /?x HTTP/1.1\r\nHost: a.b\r\nConnection: close\r\n\r\n");
}

TEST(ProxyRequestTest, AnythingElseIsABadRequest) {
  const char* kBad[] = {
      "\r\n\r\n",
      "GET / HTTP/1.1\r\n\r\n",
      "GET https://example.com/ HTTP/1.1\r\n\r\n",
      "GET ftp://example.com/ HTTP/1.1\r\n\r\n",
      "GET http://user:pw@example.com/ HTTP/1.1\r\n\r\n",
      "GET http://exa mple.com/ HTTP/1.1\r\n\r\n",
      "GET http://example.com:99999/ HTTP/1.1\r\n\r\n",
      "GET http://example.com/ HTTP/2\r\n\r\n",
      "CONNECT example.com HTTP/1.1\r\n\r\n",
      "CONNECT [::1 HTTP/1.1\r\n\r\n",
      "CONNECT exa_mple.com:443 HTTP/1.1\r\n\r\n",
      // Read as an allowlist rule is (host_port.h): no empty label, no
      // junk after an IPv6 address, no bracketed name.
      "CONNECT a..example.com:443 HTTP/1.1\r\n\r\n",
      "CONNECT example.com.:443 HTTP/1.1\r\n\r\n",
      "CONNECT [::1]x:443 HTTP/1.1\r\n\r\n",
      "CONNECT [example.com]:443 HTTP/1.1\r\n\r\n",
      "G(T http://example.com/ HTTP/1.1\r\n\r\n",
      "GET http://example.com/ HTTP/1.1\r\nNoColon\r\n\r\n",
      "GET http://example.com/ HTTP/1.1\r\nX: a\nHost: evil\r\n\r\n",
      "GET http://example.com/ HTTP/1.1\r\nBad Name: a\r\n\r\n",
  };
  for (const char* head : kBad) {
    SCOPED_TRACE(head);
    auto r = ParseProxyRequest(head);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().reason(), "bad_request");
  }
}

}  // namespace
}  // namespace coderunner::egress
