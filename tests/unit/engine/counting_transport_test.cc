#include "coderunner/engine/counting_transport.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::engine {
namespace {

TEST(CountingTransportTest, CountsEveryRequestByMethodAndForwardsIt) {
  testutil::FakeTransport fake;
  MetricsRegistry metrics;
  CountingTransport counting(fake, metrics);
  struct Case {
    const char* method;
    const char* path;
    bool stream;
  };
  const std::vector<Case> cases = {{"GET", "/_ping", false},
                                   {"GET", "/images/x/json", false},
                                   {"POST", "/containers/create", false},
                                   {"DELETE", "/containers/a", false},
                                   {"POST", "/containers/a/attach", true}};
  for (const auto& c : cases) {
    HttpRequest r;
    r.method = c.method;
    r.path = c.path;
    if (c.stream) {
      (void)counting.Stream(
          r, [](std::string_view) { return true; }, nullptr, nullptr);
    } else {
      (void)counting.Do(r);
    }
  }
  EXPECT_EQ(metrics.Value("coderunner_engine_requests_total", {{"method", "GET"}}), 2);
  EXPECT_EQ(metrics.Value("coderunner_engine_requests_total", {{"method", "POST"}}), 2);
  EXPECT_EQ(metrics.Value("coderunner_engine_requests_total", {{"method", "DELETE"}}), 1);
  EXPECT_EQ(fake.requests().size(), cases.size());
}

}  // namespace
}  // namespace coderunner::engine
