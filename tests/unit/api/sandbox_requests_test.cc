#include "api/sandbox_requests.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace coderunner::api {
namespace {

using ::testing::HasSubstr;

const config::TierConfig& Tier(const config::Config& c, const std::string& name) {
  return *c.FindTier(name);
}

struct CreateCase {
  const char* name;
  const char* tier;
  const char* body;
  StatusCode want;
  const char* want_reason;  // With an error.
  const char* want_text;    // In the message, with an error.
};

class ParseSandboxCreateTest : public ::testing::TestWithParam<CreateCase> {};

TEST_P(ParseSandboxCreateTest, AcceptsOrRefusesAsTheTierAllows) {
  const CreateCase& c = GetParam();
  config::Config cfg = config::DefaultConfig();
  auto r = ParseSandboxCreate(c.body, cfg, Tier(cfg, c.tier), "sbx-000000000000000000000001");
  EXPECT_EQ(r.status().code(), c.want) << r.status().ToString();
  if (!r.ok()) {
    EXPECT_EQ(r.status().reason(), c.want_reason);
    EXPECT_THAT(r.status().message(), HasSubstr(c.want_text));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseSandboxCreateTest,
    ::testing::Values(
        CreateCase{"EmptyBodyTakesTheDefaults", "free", "", StatusCode::kOk, "", ""},
        CreateCase{"LanguageAndTtl", "pro", R"({"language":"bash","ttl_s":7200})", StatusCode::kOk,
                   "", ""},
        CreateCase{"TtlOverTheTierIsLimitExceeded", "free", R"({"ttl_s":86401})",
                   StatusCode::kFailedPrecondition, "limit_exceeded", "tier free"},
        CreateCase{"TtlOverFourteenDaysIsRefused", "enterprise", R"({"ttl_s":1209601})",
                   StatusCode::kFailedPrecondition, "limit_exceeded", "1209600"},
        CreateCase{"ZeroTtlIsInvalid", "pro", R"({"ttl_s":0})", StatusCode::kInvalidArgument,
                   "invalid_request", "ttl_s"},
        CreateCase{"StringTtlIsInvalid", "pro", R"({"ttl_s":"1h"})", StatusCode::kInvalidArgument,
                   "invalid_request", "ttl_s"},
        CreateCase{"MemoryOverTheTierIsLimitExceeded", "free",
                   R"({"limits":{"memory_bytes":1073741824}})", StatusCode::kFailedPrecondition,
                   "limit_exceeded", "free"},
        CreateCase{"UnknownLanguage", "pro", R"({"language":"cobol"})",
                   StatusCode::kInvalidArgument, "unknown_language", "cobol"},
        CreateCase{"UnknownField", "pro", R"({"code":"x"})", StatusCode::kInvalidArgument,
                   "invalid_request", "unknown field"},
        CreateCase{"VolumeIdIsKept", "pro", R"({"volume_id":"vol-1"})", StatusCode::kOk, "", ""},
        CreateCase{"VolumeIdMustBeAString", "pro", R"({"volume_id":1})",
                   StatusCode::kInvalidArgument, "invalid_request", "volume_id"},
        CreateCase{"NotJson", "pro", "{", StatusCode::kInvalidArgument, "invalid_json", "JSON"}),
    [](const ::testing::TestParamInfo<CreateCase>& info) { return info.param.name; });

TEST(ParseSandboxCreateTest, DefaultsComeFromTheTierAndTheLanguage) {
  config::Config cfg = config::DefaultConfig();
  auto r = ParseSandboxCreate(R"({"language":"javascript"})", cfg, Tier(cfg, "pro"),
                              "sbx-000000000000000000000002");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ttl_s, 3600);
  EXPECT_EQ(r->spec.id, "sbx-000000000000000000000002");
  EXPECT_EQ(r->spec.language.name, "javascript");
  EXPECT_EQ(r->spec.limits.memory_bytes, cfg.default_limits.memory_bytes);
}

struct ExecuteCase {
  const char* name;
  const char* body;
  StatusCode want;
  const char* want_text;
};

class ParseSandboxExecuteTest : public ::testing::TestWithParam<ExecuteCase> {};

TEST_P(ParseSandboxExecuteTest, ValidatesLikeAJob) {
  const ExecuteCase& c = GetParam();
  auto r = ParseSandboxExecute(c.body, wire::RequestCaps{});
  EXPECT_EQ(r.status().code(), c.want) << r.status().ToString();
  if (!r.ok()) {
    EXPECT_THAT(r.status().message(), HasSubstr(c.want_text));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseSandboxExecuteTest,
    ::testing::Values(
        ExecuteCase{"CodeOnly", R"({"code":"x = 1"})", StatusCode::kOk, ""},
        ExecuteCase{"CodeFilesTimeout",
                    R"({"code":"x","files":[{"path":"d/a.txt","content":"hi"}],"timeout_ms":500})",
                    StatusCode::kOk, ""},
        ExecuteCase{"MissingCode", R"({"timeout_ms":5})", StatusCode::kInvalidArgument, "code"},
        ExecuteCase{"TraversalInAFilePath",
                    R"({"code":"x","files":[{"path":"../etc/passwd","content":"x"}]})",
                    StatusCode::kInvalidArgument, "files[0].path"},
        ExecuteCase{"ReservedFileName",
                    R"({"code":"x","files":[{"path":".coderunner-in","content":"x"}]})",
                    StatusCode::kInvalidArgument, ".coderunner"},
        ExecuteCase{"ZeroTimeout", R"({"code":"x","timeout_ms":0})", StatusCode::kInvalidArgument,
                    "timeout_ms"},
        ExecuteCase{"UnknownField", R"({"code":"x","stdin":"y"})", StatusCode::kInvalidArgument,
                    "unknown field"}),
    [](const ::testing::TestParamInfo<ExecuteCase>& info) { return info.param.name; });

TEST(ParseSandboxExecuteTest, KeepsCodeAndDecodesFiles) {
  auto r = ParseSandboxExecute(
      R"j({"code":"print(1)","files":[{"path":"b.bin","content":"AAH/","encoding":"base64"}]})j",
      wire::RequestCaps{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->code, "print(1)");
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_EQ(r->files[0].content, std::string("\0\x01\xff", 3));
  EXPECT_FALSE(r->timeout_ms.has_value());
}

}  // namespace
}  // namespace coderunner::api
