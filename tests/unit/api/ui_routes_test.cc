// The playground page's Content-Security-Policy (src/api/ui_routes.h).
#include "api/ui_routes.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

namespace coderunner::api {
namespace {

std::map<std::string, std::string> Directives(const std::string& csp) {
  std::map<std::string, std::string> out;
  std::stringstream in(csp);
  std::string part;
  while (std::getline(in, part, ';')) {
    size_t start = part.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    part = part.substr(start);
    size_t space = part.find(' ');
    out[part.substr(0, space)] = space == std::string::npos ? "" : part.substr(space + 1);
  }
  return out;
}

TEST(PageCspTest, EveryDirectiveIsAsStrictAsThePageAllows) {
  auto d = Directives(PageCsp("csp-0123"));
  struct Case {
    const char* directive;
    const char* value;
  };
  const Case cases[] = {
      {"default-src", "'none'"},
      {"script-src", "'self'"},  // No inline script, no eval.
      {"style-src", "'self' 'nonce-csp-0123'"},
      {"img-src", "'self' blob: data:"},
      {"connect-src", "'self'"},
      {"font-src", "'self'"},
      {"base-uri", "'none'"},
      {"form-action", "'none'"},
      {"frame-ancestors", "'none'"},
  };
  for (const Case& c : cases) EXPECT_EQ(d[c.directive], c.value) << c.directive;
  EXPECT_EQ(d.size(), std::size(cases));
  for (const char* loose : {"unsafe-inline", "unsafe-eval", "*", "http:", "https:"}) {
    EXPECT_EQ(PageCsp("n").find(loose), std::string::npos) << loose;
  }
}

}  // namespace
}  // namespace coderunner::api
