// Download and API safety headers: hostile file names never inject a header.
#include "api/response_headers.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace coderunner::api {
namespace {

TEST(ResponseHeadersTest, ContentDispositionOfHostileNames) {
  struct Case {
    const char* name;
    std::string path;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"plain", "report.txt", R"(attachment; filename="report.txt"; filename*=UTF-8''report.txt)"},
      {"only the last component", "sub/dir/plot.png",
       R"(attachment; filename="plot.png"; filename*=UTF-8''plot.png)"},
      {"markup", "<img src=x onerror=alert(1)>.html",
       "attachment; filename=\"_img_src_x_onerror_alert_1__.html\"; "
       "filename*=UTF-8''%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.html"},
      {"quotes and semicolons", "a\"; filename=\"evil.html",
       "attachment; filename=\"a___filename__evil.html\"; "
       "filename*=UTF-8''a%22%3B%20filename%3D%22evil.html"},
      {"CR LF", "x\r\nSet-Cookie: a=b",
       "attachment; filename=\"x__Set-Cookie__a_b\"; "
       "filename*=UTF-8''x%0D%0ASet-Cookie%3A%20a%3Db"},
      {"backslash and percent", "a\\b%41.txt",
       "attachment; filename=\"a_b_41.txt\"; filename*=UTF-8''a%5Cb%2541.txt"},
      {"non-ASCII", "r\xC3\xA9sum\xC3\xA9.pdf",
       "attachment; filename=\"r__sum__.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf"},
      {"ill-formed UTF-8 becomes U+FFFD", "a\xFF.bin",
       "attachment; filename=\"a___.bin\"; filename*=UTF-8''a%EF%BF%BD.bin"},
      {"nothing safe left", "\xE6\x97\xA5",
       "attachment; filename=\"download\"; filename*=UTF-8''%E6%97%A5"},
      {"trailing slash", "dir/", "attachment; filename=\"download\"; filename*=UTF-8''download"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string got = ContentDisposition(c.path);
    EXPECT_EQ(got, c.want);
    for (char ch : got) {
      auto u = static_cast<unsigned char>(ch);
      EXPECT_TRUE(u >= 0x20 && u < 0x7f) << "byte " << static_cast<int>(u);
    }
    // Exactly the two quotes around the fallback, and the two ';' between
    // the parameters.
    EXPECT_EQ(std::count(got.begin(), got.end(), '"'), 2);
    EXPECT_EQ(std::count(got.begin(), got.end(), ';'), 2);
  }
}

TEST(ResponseHeadersTest, DownloadHeaders) {
  auto headers = DownloadHeaders("out/x.svg");
  ASSERT_EQ(headers.size(), 3u);
  EXPECT_EQ(headers[0].first, "Content-Disposition");
  EXPECT_EQ(headers[0].second, R"(attachment; filename="x.svg"; filename*=UTF-8''x.svg)");
  EXPECT_EQ(headers[1],
            std::make_pair(std::string("X-Content-Type-Options"), std::string("nosniff")));
  EXPECT_EQ(headers[2], std::make_pair(std::string("Content-Security-Policy"),
                                       std::string("default-src 'none'; sandbox")));
}

TEST(ResponseHeadersTest, ApiHeadersKeepARoutesOwn) {
  struct Case {
    const char* name;
    std::vector<std::pair<std::string, std::string>> before;
    std::string want_csp;
  };
  const std::vector<Case> cases = {
      {"none set", {}, "default-src 'none'; frame-ancestors 'none'"},
      {"a download's CSP", {{"Content-Security-Policy", kDownloadCsp}}, kDownloadCsp},
      {"a page's CSP", {{"Content-Security-Policy", "default-src 'self'"}}, "default-src 'self'"},
      {"unrelated headers", {{"X-Request-Id", "r1"}}, kApiCsp},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    httplib::Response res;
    for (const auto& [k, v] : c.before) res.set_header(k, v);
    AddApiSecurityHeaders(res);
    AddApiSecurityHeaders(res);  // Twice: still one of each.
    EXPECT_EQ(res.get_header_value("Content-Security-Policy"), c.want_csp);
    for (const char* name : {"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options",
                             "Referrer-Policy"}) {
      EXPECT_EQ(res.get_header_value_count(name), 1u) << name;
    }
    EXPECT_EQ(res.get_header_value("X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(res.get_header_value("X-Frame-Options"), "DENY");
    EXPECT_EQ(res.get_header_value("Referrer-Policy"), "no-referrer");
  }
}

}  // namespace
}  // namespace coderunner::api
