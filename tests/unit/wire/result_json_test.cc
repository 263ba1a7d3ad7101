#include "coderunner/wire/result_json.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "coderunner/common/base64.h"
#include "coderunner/common/utf8.h"

namespace coderunner::wire {
namespace {

using isolation::RunStatus;
using nlohmann::json;

const std::string kFffd = "\xEF\xBF\xBD";

isolation::JobSpec Job() {
  isolation::JobSpec job;
  job.id = "job-123";
  job.language = {"python", "coderunner/python:3.11", "main.py", {"python3", "{file}"}, true, "",
                  {}};
  job.code = "abc";
  job.limits.pids = 17;
  return job;
}

isolation::RunResult Succeeded() {
  isolation::RunResult r;
  r.status = RunStatus::kSucceeded;
  r.exit_code = 0;
  r.stdout_data = "hello\n";
  r.stderr_data = "";
  r.image = "coderunner/python:3.11";
  r.image_digest = "sha256:" + std::string(64, 'a');
  r.metrics = {120, 80, 75, 1 << 20};
  r.error = OkStatus();
  return r;
}

TEST(ResultJsonTest, RendersSucceededJob) {
  json j = ResultToJson(Job(), Succeeded(), OutputEncoding::kUtf8);
  EXPECT_EQ(j["id"], "job-123");
  EXPECT_EQ(j["status"], "succeeded");
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_TRUE(j["signal"].is_null());
  EXPECT_EQ(j["stdout"], "hello\n");
  EXPECT_EQ(j["stderr"], "");
  EXPECT_EQ(j["stdout_truncated"], false);
  EXPECT_EQ(j["output_encoding"], "utf8");
  EXPECT_EQ(j["language"], "python");
  EXPECT_EQ(j["image"], "coderunner/python:3.11");
  EXPECT_EQ(j["image_digest"], "sha256:" + std::string(64, 'a'));
  EXPECT_EQ(j["code_sha256"], "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      j["metrics"],
      json({{"wall_ms", 120}, {"run_ms", 80}, {"cpu_ms", 75}, {"memory_peak_bytes", 1 << 20}}));
  EXPECT_EQ(j["limits"]["pids"], 17);
  EXPECT_EQ(j["limits"]["cpus"], 1.0);
  EXPECT_TRUE(j["error"].is_null());
}

TEST(ResultJsonTest, ErrorIsNullUnlessStatusIsError) {
  struct Case {
    RunStatus status;
    const char* name;
    bool error;
  };
  const std::vector<Case> cases = {{RunStatus::kSucceeded, "succeeded", false},
                                   {RunStatus::kFailed, "failed", false},
                                   {RunStatus::kTimeout, "timeout", false},
                                   {RunStatus::kOom, "oom", false},
                                   {RunStatus::kError, "error", true}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    isolation::RunResult r = Succeeded();
    r.status = c.status;
    if (c.error) r.error = FailedPreconditionError("image missing", "image_missing");
    json j = ResultToJson(Job(), r, OutputEncoding::kUtf8);
    EXPECT_EQ(j["status"], c.name);
    if (c.error) {
      EXPECT_EQ(j["error"], json({{"code", "image_missing"}, {"message", "image missing"}}));
      EXPECT_TRUE(j["exit_code"].is_null());
      EXPECT_TRUE(j["signal"].is_null());
    } else {
      EXPECT_TRUE(j["error"].is_null());
      EXPECT_EQ(j["exit_code"], 0);
    }
  }
}

TEST(ResultJsonTest, SignalIsNamed) {
  struct Case {
    int signal;
    json want;
  };
  const std::vector<Case> cases = {{0, nullptr},         {SIGKILL, "SIGKILL"}, {SIGSEGV, "SIGSEGV"},
                                   {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {64, "SIG64"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.signal);
    isolation::RunResult r = Succeeded();
    r.status = RunStatus::kFailed;
    r.exit_code = 128 + c.signal;
    r.signal = c.signal;
    json j = ResultToJson(Job(), r, OutputEncoding::kUtf8);
    EXPECT_EQ(j["signal"], c.want);
    EXPECT_EQ(j["exit_code"], 128 + c.signal);
  }
}

TEST(ResultJsonTest, SignalNameTable) {
  const std::vector<std::pair<int, const char*>> cases = {
      {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"},
      {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGPIPE, "SIGPIPE"}, {SIGINT, "SIGINT"},
      {SIGHUP, "SIGHUP"},   {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},
      {SIGQUIT, "SIGQUIT"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},   {0, "SIG0"},
      {99, "SIG99"}};
  for (const auto& [sig, name] : cases) {
    SCOPED_TRACE(sig);
    EXPECT_EQ(SignalName(sig), name);
  }
}

TEST(ResultJsonTest, InvalidUtf8IsReplacedWithFffd) {
  isolation::RunResult r = Succeeded();
  r.stdout_data =
      "ok\xff\xC0\x80"
      "end\xED\xA0\x80";
  r.stderr_data = std::string("nul\0kept", 8);
  json j = ResultToJson(Job(), r, OutputEncoding::kUtf8);
  EXPECT_EQ(j["stdout"], "ok" + kFffd + kFffd + kFffd + "end" + kFffd + kFffd + kFffd);
  EXPECT_EQ(j["stderr"], std::string("nul\0kept", 8));
  EXPECT_NO_THROW(j.dump());
}

TEST(ResultJsonTest, Base64ModeIsExact) {
  isolation::RunResult r = Succeeded();
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  r.stdout_data = bytes;
  r.stderr_data = "\xE2\x82";  // Cut character, kept as is.
  r.stderr_truncated = true;
  json j = ResultToJson(Job(), r, OutputEncoding::kBase64);
  EXPECT_EQ(j["output_encoding"], "base64");
  auto out = Base64Decode(j["stdout"].get<std::string>());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, bytes);
  auto err = Base64Decode(j["stderr"].get<std::string>());
  ASSERT_TRUE(err.ok());
  EXPECT_EQ(*err, "\xE2\x82");
}

TEST(ResultJsonTest, TruncatedOutputIsCutAtACharacterBoundary) {
  struct Case {
    const char* name;
    std::string data;
    bool truncated;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"truncated mid 3-byte", "ab\xE2\x82", true, "ab"},
      {"truncated mid 4-byte", "ab\xF0\x9F\x98", true, "ab"},
      {"truncated at boundary", "ab\xE2\x82\xAC", true, "ab\xE2\x82\xAC"},
      {"not truncated, cut char is invalid", "ab\xE2\x82", false, "ab" + kFffd},
      {"truncated with earlier garbage",
       "\xff"
       "ab\xC3",
       true, kFffd + "ab"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    isolation::RunResult r = Succeeded();
    r.stdout_data = c.data;
    r.stdout_truncated = c.truncated;
    json j = ResultToJson(Job(), r, OutputEncoding::kUtf8);
    EXPECT_EQ(j["stdout"], c.want);
    EXPECT_EQ(j["stdout_truncated"], c.truncated);
  }
}

TEST(ResultJsonTest, EmptyDigestIsNull) {
  isolation::RunResult r = Succeeded();
  r.image_digest = "";
  EXPECT_TRUE(ResultToJson(Job(), r, OutputEncoding::kUtf8)["image_digest"].is_null());
}

TEST(ResultJsonTest, CodeSha256HashesTheSubmittedCode) {
  isolation::JobSpec job = Job();
  job.code = "";
  EXPECT_EQ(ResultToJson(job, Succeeded(), OutputEncoding::kUtf8)["code_sha256"],
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(ResultJsonTest, RuntimeOnlyWhenTheResultNamesOne) {
  struct Case {
    std::string runtime;
    json want;
  };
  const std::vector<Case> cases = {{"", nullptr}, {isolation::kRuntimeNative, "native"}};
  for (const Case& c : cases) {
    isolation::RunResult r = Succeeded();
    r.runtime = c.runtime;
    json j = ResultToJson(Job(), r, OutputEncoding::kUtf8);
    EXPECT_EQ(j.contains("runtime"), !c.runtime.empty());
    EXPECT_EQ(j.value("runtime", json(nullptr)), c.want);
  }
}

struct SignalCase {
  const char* name;
  int want;
};

class SignalNumberTest : public ::testing::TestWithParam<SignalCase> {};

TEST_P(SignalNumberTest, NamesAndNumbers) {
  EXPECT_EQ(SignalNumber(GetParam().name), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(Cases, SignalNumberTest,
                         ::testing::Values(SignalCase{"SIGKILL", 9}, SignalCase{"SIGSEGV", 11},
                                           SignalCase{"SIGXCPU", 24}, SignalCase{"SIG34", 34},
                                           SignalCase{"SIG", 0}, SignalCase{"SIGX", 0},
                                           SignalCase{"SIG0", 0}, SignalCase{"KILL", 0}));

}  // namespace
}  // namespace coderunner::wire
