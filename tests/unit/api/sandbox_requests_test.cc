#include "api/sandbox_requests.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
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

// The routes hand over the body RouteTable parsed, which is not parsed
// again: read from it, every body gives what its text gives.
TEST(SandboxRequestsFromJsonTest, AParsedBodyReadsAsItsText) {
  config::Config cfg = config::DefaultConfig();
  const std::string id = "sbx-000000000000000000000003";
  for (const char* body :
       {R"({"language":"bash","ttl_s":7200})", R"({"ttl_s":0})", R"({"code":"x"})",
        R"({"limits":{"memory_bytes":1073741824}})", "[1]", "null"}) {
    SCOPED_TRACE(body);
    auto text = ParseSandboxCreate(body, cfg, Tier(cfg, "pro"), id);
    auto parsed = SandboxCreateFromJson(nlohmann::json::parse(body), cfg, Tier(cfg, "pro"), id);
    EXPECT_EQ(parsed.status().ToString(), text.status().ToString());
    if (text.ok() && parsed.ok()) {
      EXPECT_EQ(parsed->ttl_s, text->ttl_s);
      EXPECT_EQ(parsed->spec.language.name, text->spec.language.name);
    }
  }
  for (const char* body : {R"({"code":"x","timeout_ms":500})", R"({"timeout_ms":5})",
                           R"({"code":"x","stdin":"y"})", "[1]", "null"}) {
    SCOPED_TRACE(body);
    auto text = ParseSandboxExecute(body, wire::RequestCaps{});
    auto parsed = SandboxExecuteFromJson(nlohmann::json::parse(body), wire::RequestCaps{});
    EXPECT_EQ(parsed.status().ToString(), text.status().ToString());
    if (text.ok() && parsed.ok()) {
      EXPECT_EQ(parsed->code, text->code);
      EXPECT_EQ(parsed->timeout_ms, text->timeout_ms);
    }
  }
}

}  // namespace
}  // namespace coderunner::api
