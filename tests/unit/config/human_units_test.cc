// Human-readable sizes and durations: the parser alone, and through the
// config tables (every bytes and time key takes them; errors name the key).
#include "config/human_units.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "coderunner/config/config.h"

namespace coderunner::config {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;

struct Good {
  const char* text;
  int64_t want;
};

TEST(HumanUnitsTest, SizesAreBinaryMultiples) {
  const Good cases[] = {
      {"0", 0},
      {"268435456", 268435456},
      {"512B", 512},
      {"1k", 1024},
      {"1KB", 1024},
      {"1KiB", 1024},
      {"256MB", 256 * kMiB},
      {"256mb", 256 * kMiB},
      {"256M", 256 * kMiB},
      {"256MiB", 256 * kMiB},
      {"1GiB", 1024 * kMiB},
      {"1g", 1024 * kMiB},
      {"1.5GiB", 1536 * kMiB},
      {"0.5K", 512},
      {"2TB", int64_t{2} << 40},
  };
  for (const Good& c : cases) {
    SCOPED_TRACE(c.text);
    auto got = ParseSize(c.text);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.want);
  }
}

TEST(HumanUnitsTest, DurationsInMilliseconds) {
  struct Case {
    const char* text;
    int64_t plain_unit_ms;
    int64_t want_ms;
  };
  const Case cases[] = {
      {"500", 1, 500},    {"30", 1000, 30000}, {"500ms", 1000, 500}, {"30s", 1, 30000},
      {"30S", 1, 30000},  {"2m", 1, 120000},   {"1h", 1, 3600000},   {"1.5s", 1, 1500},
      {"0.5m", 1, 30000}, {"0", 1000, 0},      {"10MS", 1, 10},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    auto got = ParseDurationMs(c.text, c.plain_unit_ms);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.want_ms);
  }
}

TEST(HumanUnitsTest, MalformedValuesSayWhy) {
  struct Case {
    const char* text;
    bool size;  // Else a duration.
    const char* why;
  };
  const Case cases[] = {
      {"", true, "is empty"},
      {"-1MB", true, "must not be negative"},
      {"-5s", false, "must not be negative"},
      {"12 MB", true, "no space"},
      {"12XB", true, "unknown unit 'XB'"},
      {"10d", false, "unknown unit 'd'"},
      {"30s", true, "unknown unit"},
      {"1MB", false, "unknown unit"},
      {"MB", true, "expected a number"},
      {"+1MB", true, "expected a number"},
      {"1.", true, "expected digits after '.'"},
      {"1.3B", true, "not a whole number of bytes"},
      {"0.5ms", false, "not a whole number of milliseconds"},
      {"9223372036854775808", true, "too large"},
      {"8388608TiB", true, "too large"},
      {"99999999999999999999999999999999999K", true, "too large"},
      {"1e9", true, "unknown unit 'e9'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    auto got = c.size ? ParseSize(c.text) : ParseDurationMs(c.text, 1);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr(c.why));
  }
}

TEST(HumanUnitsTest, EveryBytesAndTimeKeyTakesThem) {
  auto c = ParseConfig(
      "server: {max_body_bytes: 4MiB, probe_cache_ms: 2s, shutdown_grace_s: 1m}\n"
      "limits:\n"
      "  default: {memory_bytes: 512MB, timeout_ms: 30s, cpu_ms: \"20000\"}\n"
      "  max: {memory_bytes: 2GiB, tmp_bytes: 1GB}\n"
      "tiers: {free: {max_memory_bytes: 256MB, sandbox_ttl_s: 1h}}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server.max_body_bytes, 4 * kMiB);
  EXPECT_EQ(c->server.probe_cache_ms, 2000);
  EXPECT_EQ(c->server.shutdown_grace_s, 60);
  EXPECT_EQ(c->default_limits.memory_bytes, 512 * kMiB);
  EXPECT_EQ(c->default_limits.timeout_ms, 30000);
  EXPECT_EQ(c->default_limits.cpu_ms, 20000);
  EXPECT_EQ(c->max_limits.memory_bytes, 2048 * kMiB);
  EXPECT_EQ(c->max_limits.tmp_bytes, 1024 * kMiB);
  EXPECT_EQ(c->FindTier("free")->max_memory_bytes, 256 * kMiB);
  EXPECT_EQ(c->FindTier("free")->sandbox_ttl_s, 3600);
}

TEST(HumanUnitsTest, ConfigErrorsNameTheKey) {
  struct Case {
    const char* yaml;
    const char* error;
  };
  const Case cases[] = {
      {"limits: {default: {memory_bytes: 12XB}}",
       "config: limits.default.memory_bytes: unknown unit 'XB'"},
      {"limits: {default: {memory_bytes: 12 MB}}", "config: limits.default.memory_bytes: no space"},
      {"limits: {default: {memory_bytes: \"\"}}", "config: limits.default.memory_bytes: is empty"},
      {"limits: {default: {memory_bytes: -1MB}}",
       "config: limits.default.memory_bytes: must not be negative"},
      {"limits: {default: {timeout_ms: 10d}}", "config: limits.default.timeout_ms: unknown unit"},
      {"server: {shutdown_grace_s: 500ms}",
       "config: server.shutdown_grace_s: '500ms' is not a whole number of seconds"},
      {"files: {max_count: 10K}", "config: files.max_count: cannot read"},
      {"intents: {max_intent_bytes: 3GiB}", "config: intents.max_intent_bytes: must be between"},
      {"llm: {max_tokens: 1h}", "config: llm.max_tokens: cannot read"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto got = ParseConfig(c.yaml);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr(c.error));
  }
}

}  // namespace
}  // namespace coderunner::config
