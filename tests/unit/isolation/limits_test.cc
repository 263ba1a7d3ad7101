#include "coderunner/isolation/limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace coderunner::isolation {
namespace {

using ::testing::HasSubstr;

Limits Max() {
  Limits m;
  m.timeout_ms = 60000;
  m.cpu_ms = 60000;
  m.memory_bytes = 1LL << 30;
  m.pids = 256;
  m.output_bytes = 8LL << 20;
  m.tmp_bytes = 512LL << 20;
  m.cpus = 2.0;
  return m;
}

TEST(LimitsTest, NoOverridesGivesDefaults) {
  auto l = ResolveLimits(Limits{}, Max(), {});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->timeout_ms, 10000);
  EXPECT_EQ(l->cpu_ms, 10000);
  EXPECT_EQ(l->memory_bytes, 256LL << 20);
  EXPECT_EQ(l->pids, 64);
  EXPECT_EQ(l->output_bytes, 1LL << 20);
  EXPECT_EQ(l->tmp_bytes, 64LL << 20);
  EXPECT_EQ(l->cpus, 1.0);
}

TEST(LimitsTest, EachOverrideReplacesOnlyItsField) {
  struct Case {
    const char* name;
    std::function<void(LimitOverrides&)> set;
    std::function<void(Limits&)> want;
  };
  const std::vector<Case> cases = {
      {"timeout_ms", [](auto& o) { o.timeout_ms = 60000; }, [](auto& l) { l.timeout_ms = 60000; }},
      {"cpu_ms", [](auto& o) { o.cpu_ms = 1; }, [](auto& l) { l.cpu_ms = 1; }},
      {"memory_bytes", [](auto& o) { o.memory_bytes = 6LL << 20; },
       [](auto& l) { l.memory_bytes = 6LL << 20; }},
      {"pids", [](auto& o) { o.pids = 2; }, [](auto& l) { l.pids = 2; }},
      {"output_bytes", [](auto& o) { o.output_bytes = 0; }, [](auto& l) { l.output_bytes = 0; }},
      {"tmp_bytes", [](auto& o) { o.tmp_bytes = 1LL << 20; },
       [](auto& l) { l.tmp_bytes = 1LL << 20; }},
      {"cpus", [](auto& o) { o.cpus = 0.5; }, [](auto& l) { l.cpus = 0.5; }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    LimitOverrides o;
    c.set(o);
    Limits want;
    c.want(want);
    auto l = ResolveLimits(Limits{}, Max(), o);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    EXPECT_EQ(l->timeout_ms, want.timeout_ms);
    EXPECT_EQ(l->cpu_ms, want.cpu_ms);
    EXPECT_EQ(l->memory_bytes, want.memory_bytes);
    EXPECT_EQ(l->pids, want.pids);
    EXPECT_EQ(l->output_bytes, want.output_bytes);
    EXPECT_EQ(l->tmp_bytes, want.tmp_bytes);
    EXPECT_EQ(l->cpus, want.cpus);
  }
}

TEST(LimitsTest, AboveMaxIsLimitExceededNamingTheLimitAndMaximum) {
  struct Case {
    const char* name;
    std::function<void(LimitOverrides&)> set;
    const char* max;
  };
  const std::vector<Case> cases = {
      {"timeout_ms", [](auto& o) { o.timeout_ms = 60001; }, "60000"},
      {"cpu_ms", [](auto& o) { o.cpu_ms = 1LL << 40; }, "60000"},
      {"memory_bytes", [](auto& o) { o.memory_bytes = (1LL << 30) + 1; }, "1073741824"},
      {"pids", [](auto& o) { o.pids = 257; }, "256"},
      {"output_bytes", [](auto& o) { o.output_bytes = (8LL << 20) + 1; }, "8388608"},
      {"tmp_bytes", [](auto& o) { o.tmp_bytes = std::numeric_limits<int64_t>::max(); },
       "536870912"},
      {"cpus", [](auto& o) { o.cpus = 2.5; }, "2"},
      {"cpus", [](auto& o) { o.cpus = std::numeric_limits<double>::infinity(); }, "2"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    LimitOverrides o;
    c.set(o);
    auto l = ResolveLimits(Limits{}, Max(), o);
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(l.status().reason(), "limit_exceeded");
    EXPECT_THAT(l.status().message(), HasSubstr(std::string("limits.") + c.name));
    EXPECT_THAT(l.status().message(), HasSubstr(c.max));
  }
}

TEST(LimitsTest, BelowFloorIsInvalidArgument) {
  struct Case {
    const char* name;
    std::function<void(LimitOverrides&)> set;
  };
  const std::vector<Case> cases = {
      {"timeout_ms", [](auto& o) { o.timeout_ms = 0; }},
      {"timeout_ms", [](auto& o) { o.timeout_ms = -5; }},
      {"cpu_ms", [](auto& o) { o.cpu_ms = 0; }},
      {"memory_bytes", [](auto& o) { o.memory_bytes = (6LL << 20) - 1; }},
      {"pids", [](auto& o) { o.pids = 1; }},
      {"output_bytes", [](auto& o) { o.output_bytes = -1; }},
      {"tmp_bytes", [](auto& o) { o.tmp_bytes = (1LL << 20) - 1; }},
      {"cpus", [](auto& o) { o.cpus = 0.0; }},
      {"cpus", [](auto& o) { o.cpus = -1.0; }},
      {"cpus", [](auto& o) { o.cpus = std::numeric_limits<int64_t>::min(); }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    LimitOverrides o;
    c.set(o);
    auto l = ResolveLimits(Limits{}, Max(), o);
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(l.status().reason(), "invalid_limit");
    EXPECT_THAT(l.status().message(), HasSubstr(std::string("limits.") + c.name));
  }
}

// NaN compares false against both bounds; it must not slip through to
// NanoCpus = NaN * 1e9 (undefined when converted to int64).
TEST(LimitsTest, NanCpusIsRejected) {
  LimitOverrides o;
  o.cpus = std::nan("");
  auto l = ResolveLimits(Limits{}, Max(), o);
  EXPECT_FALSE(l.ok());
  if (!l.ok()) {
    EXPECT_EQ(l.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(LimitsTest, ValueEqualToMaxIsAccepted) {
  LimitOverrides o;
  Limits m = Max();
  o.timeout_ms = m.timeout_ms;
  o.cpu_ms = m.cpu_ms;
  o.memory_bytes = m.memory_bytes;
  o.pids = m.pids;
  o.output_bytes = m.output_bytes;
  o.tmp_bytes = m.tmp_bytes;
  o.cpus = m.cpus;
  EXPECT_TRUE(ResolveLimits(Limits{}, m, o).ok());
}

TEST(LimitsTest, ValidateLimitPairChecksDefaultsAgainstMax) {
  EXPECT_TRUE(ValidateLimitPair(Limits{}, Max()).ok());
  Limits d;
  d.pids = 1000;
  Status s = ValidateLimitPair(d, Max());
  EXPECT_EQ(s.reason(), "limit_exceeded");
  EXPECT_THAT(s.message(), HasSubstr("limits.pids"));
  d = Limits{};
  d.memory_bytes = 1;
  EXPECT_EQ(ValidateLimitPair(d, Max()).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace coderunner::isolation
