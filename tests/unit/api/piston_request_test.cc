#include "api/piston_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace coderunner::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

config::Config TestConfig() { return config::DefaultConfig(); }

TEST(PistonRuntimesTest, VersionsComeFromImageTagsAndAliasesFromTheLanguage) {
  json runtimes = PistonRuntimesJson(TestConfig());
  ASSERT_EQ(runtimes.size(), 9u) << runtimes;
  EXPECT_EQ(runtimes[0], json::parse(R"j({"language":"python","version":"3.11.0",
                                          "aliases":["py","py3","python3"]})j"));
  EXPECT_EQ(runtimes[1], json::parse(R"j({"language":"javascript","version":"20.0.0",
      "aliases":["js","node","node-js","node-javascript"],"runtime":"node"})j"));
  EXPECT_EQ(runtimes[2], json::parse(R"j({"language":"typescript","version":"5.0.0",
                             "aliases":["ts","node-ts","tsc","typescript5","ts5"]})j"));
  EXPECT_EQ(runtimes[3],
            json::parse(R"j({"language":"bash","version":"5.0.0","aliases":["sh"]})j"));
  EXPECT_EQ(runtimes[5], json::parse(R"j({"language":"cpp","version":"12.0.0",
                                          "aliases":["c++","g++"],"runtime":"gcc"})j"));
  EXPECT_EQ(runtimes[8],
            json::parse(R"j({"language":"rust","version":"1.63.0","aliases":["rs"]})j"));
}

TEST(PistonRuntimesTest, TagWithoutNumbersIsVersionZero) {
  config::Config config = TestConfig();
  config.languages[0].image = "python:latest";
  config.languages[1].image = "localhost:5000/node";
  config.languages[3].image = "bash:5.2-alpine";
  auto rts = PistonRuntimes(config);
  EXPECT_EQ(rts[0].version, "0.0.0");
  EXPECT_EQ(rts[1].version, "0.0.0");
  EXPECT_EQ(rts[2].version, "5.0.0") << "typescript is named by its language version";
  EXPECT_EQ(rts[3].version, "5.2.0");
  EXPECT_EQ(rts[3].tag_parts, 2);
}

// Each Piston request and the /v1/execute body it must become.
struct TranslateCase {
  const char* name;
  const char* piston;
  const char* execute;       // The expected body, or nullptr when an error is expected.
  const char* reason = "";   // Expected error reason.
  const char* message = "";  // Expected substring of the error message.
};

TEST(TranslatePistonRequestTest, Table) {
  const TranslateCase cases[] = {
      {"MissingVersionMeansLatest", R"j({"language":"python","files":[{"content":"print(1)"}]})j",
       R"j({"language":"python","code":"print(1)","output_encoding":"utf8"})j"},
      {"StarVersionMeansLatest",
       R"j({"language":"bash","version":"*","files":[{"content":"echo"}]})j",
       R"j({"language":"bash","code":"echo","output_encoding":"utf8"})j"},
      {"ExactAndPrefixVersionsMatch",
       R"j({"language":"python","version":"3.11.0","files":[{"content":"x"}]})j",
       R"j({"language":"python","code":"x","output_encoding":"utf8"})j"},
      {"PatchVersionBeyondTheTagMatches",
       R"j({"language":"python","version":"3.11.4","files":[{"content":"x"}]})j",
       R"j({"language":"python","code":"x","output_encoding":"utf8"})j"},
      {"WildcardComponentMatches",
       R"j({"language":"python","version":"3.x","files":[{"content":"x"}]})j",
       R"j({"language":"python","code":"x","output_encoding":"utf8"})j"},
      {"LeadingZerosMatch",
       R"j({"language":"python","version":"03.011","files":[{"content":"x"}]})j",
       R"j({"language":"python","code":"x","output_encoding":"utf8"})j"},
      {"HugeVersionIsUnknownNotAnOverflow",
       R"j({"language":"python","version":"99999999999999999999999","files":[{"content":"x"}]})j",
       nullptr, "unknown_runtime", "runtime is unknown"},
      {"NonNumericVersionIsUnknown",
       R"j({"language":"python","version":"3.1a","files":[{"content":"x"}]})j", nullptr,
       "unknown_runtime", "python-3.1a runtime is unknown"},
      {"AliasResolvesToTheLanguage", R"j({"language":"js","files":[{"content":"1"}]})j",
       R"j({"language":"javascript","code":"1","output_encoding":"utf8"})j"},
      {"TypescriptByName",
       R"j({"language":"typescript","version":"5.0.3","files":[{"content":"1"}]})j",
       R"j({"language":"typescript","code":"1","output_encoding":"utf8"})j"},
      {"TypescriptByPistonAlias", R"j({"language":"ts5","version":"5","files":[{"content":"1"}]})j",
       R"j({"language":"typescript","code":"1","output_encoding":"utf8"})j"},
      {"TypescriptOtherMajorIsUnknown",
       R"j({"language":"ts","version":"4.9.5","files":[{"content":"1"}]})j", nullptr,
       "unknown_runtime", "ts-4.9.5 runtime is unknown"},
      {"UnnamedFilesAreAcceptedFirstIsTheProgram",
       R"j({"language":"py","files":[{"content":"main"},{"content":"aGk=","encoding":"base64"}]})j",
       R"j({"language":"python","code":"main","output_encoding":"utf8",
            "files":[{"path":"file1.code","content":"aGk=","encoding":"base64"}]})j"},
      {"NamedFilesKeepTheirNames",
       R"j({"language":"python","files":[{"name":"prog.py","content":"import lib"},
                                         {"name":"lib.py","content":"x=1"}]})j",
       R"j({"language":"python","code":"import lib","output_encoding":"utf8",
            "files":[{"path":"lib.py","content":"eD0x","encoding":"base64"}]})j"},
      {"HexProgramIsDecoded",
       R"j({"language":"bash","files":[{"content":"6563686f","encoding":"hex"}]})j",
       R"j({"language":"bash","code":"echo","output_encoding":"utf8"})j"},
      {"StdinAndArgsPassThrough",
       R"j({"language":"bash","files":[{"content":"x"}],"stdin":"in","args":["1","2",3]})j",
       R"j({"language":"bash","code":"x","output_encoding":"utf8","stdin":"in",
            "args":["1","2","3"]})j"},
      {"MinusOneLimitsMeanDefault",
       R"j({"language":"bash","files":[{"content":"x"}],"run_timeout":-1,"run_memory_limit":-1,
            "compile_timeout":10000,"compile_memory_limit":-1})j",
       R"j({"language":"bash","code":"x","output_encoding":"utf8"})j"},
      {"LimitsMapOntoOurs",
       R"j({"language":"bash","files":[{"content":"x"}],"run_timeout":3000,
            "run_memory_limit":134217728})j",
       R"j({"language":"bash","code":"x","output_encoding":"utf8",
            "limits":{"timeout_ms":3000,"memory_bytes":134217728}})j"},
      {"LimitsAboveTheMaximumAreClamped",
       R"j({"language":"bash","files":[{"content":"x"}],"run_timeout":999999999,
            "run_memory_limit":1e15})j",
       R"j({"language":"bash","code":"x","output_encoding":"utf8",
            "limits":{"timeout_ms":60000,"memory_bytes":1073741824}})j"},
      {"UnknownFieldsAreIgnored",
       R"j({"language":"bash","files":[{"content":"x"}],"something":"else"})j",
       R"j({"language":"bash","code":"x","output_encoding":"utf8"})j"},
      {"UnknownLanguageIsUnknownRuntime", R"j({"language":"cobol","files":[{"content":"x"}]})j",
       nullptr, "unknown_runtime", "cobol-* runtime is unknown"},
      {"OtherVersionIsUnknownRuntime",
       R"j({"language":"python","version":"3.9.4","files":[{"content":"x"}]})j", nullptr,
       "unknown_runtime", "python-3.9.4 runtime is unknown"},
      {"MissingLanguage", R"j({"files":[{"content":"x"}]})j", nullptr, "invalid_request",
       "language is required"},
      {"MissingFiles", R"j({"language":"bash"})j", nullptr, "invalid_request", "files is required"},
      {"FileWithoutContent", R"j({"language":"bash","files":[{"name":"a"}]})j", nullptr,
       "invalid_request", "files[0].content"},
      {"BadEncoding", R"j({"language":"bash","files":[{"content":"x","encoding":"rot13"}]})j",
       nullptr, "invalid_request", "utf8, base64, hex"},
      {"BadHex", R"j({"language":"bash","files":[{"content":"zz","encoding":"hex"}]})j", nullptr,
       "invalid_request", "not hex"},
      {"ArgsMustBeStrings", R"j({"language":"bash","files":[{"content":"x"}],"args":[{"a":1}]})j",
       nullptr, "invalid_request", "args"},
      {"ZeroTimeoutIsRefused", R"j({"language":"bash","files":[{"content":"x"}],"run_timeout":0})j",
       nullptr, "invalid_request", "run_timeout"},
      {"MalformedJson", "{not json", nullptr, "invalid_json", "malformed"},
      {"NotAnObject", "[1]", nullptr, "invalid_request", "object"},
  };
  config::Config config = TestConfig();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto call = TranslatePistonRequest(c.piston, config, nullptr);
    if (c.execute == nullptr) {
      ASSERT_FALSE(call.ok());
      EXPECT_EQ(call.status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(call.status().reason(), c.reason);
      EXPECT_THAT(call.status().message(), HasSubstr(c.message));
      continue;
    }
    ASSERT_TRUE(call.ok()) << call.status().ToString();
    EXPECT_EQ(call->execute, json::parse(c.execute));
  }
}

TEST(TranslatePistonRequestTest, TierBoundsTheClamp) {
  config::Config config = TestConfig();
  const config::TierConfig* free = config.FindTier("free");
  ASSERT_NE(free, nullptr);
  auto call = TranslatePistonRequest(
      R"j({"language":"python","files":[{"content":"x"}],"run_timeout":600000,
           "run_memory_limit":4294967296})j",
      config, free);
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  EXPECT_EQ(call->execute["limits"]["timeout_ms"], free->max_timeout_ms);
  EXPECT_EQ(call->execute["limits"]["memory_bytes"], free->max_memory_bytes);
  EXPECT_EQ(call->language, "python");
  EXPECT_EQ(call->version, "3.11.0");
}

struct ResponseCase {
  const char* name;
  const char* result;  // Our /v1/execute result.
  const char* run;     // Expected run object (subset), or nullptr for an error.
  StatusCode code;     // Expected error code.
};

// A program decoded from hex or base64 may be any bytes; the translated
// body holds it as UTF-8, as a dump with U+FFFD replacements would.
TEST(TranslatePistonRequestTest, ProgramBytesBecomeValidUtf8) {
  struct Case {
    const char* hex;
    std::string code;
  };
  const Case cases[] = {
      {"6869", "hi"},
      {"68ff69", "h\xEF\xBF\xBDi"},
      {"e080", "\xEF\xBF\xBD\xEF\xBF\xBD"},
      {"c3a9", "\xC3\xA9"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.hex);
    json body = {{"language", "python"}, {"files", {{{"content", c.hex}, {"encoding", "hex"}}}}};
    auto call = TranslatePistonRequest(body.dump(), TestConfig(), nullptr);
    ASSERT_TRUE(call.ok()) << call.status().ToString();
    EXPECT_EQ(call->execute["code"], c.code);
    EXPECT_NO_THROW(call->execute.dump());
  }
}

TEST(PistonResponseJsonTest, Table) {
  const ResponseCase cases[] = {
      {"SucceededKeepsCodeAndStreams",
       R"j({"status":"succeeded","exit_code":0,"signal":null,"stdout":"out\n","stderr":"err\n",
            "metrics":{"cpu_ms":5,"run_ms":7,"memory_peak_bytes":100}})j",
       R"j({"stdout":"out\n","stderr":"err\n","output":"out\nerr\n","code":0,"signal":null,
            "cpu_time":5,"wall_time":7,"memory":100})j",
       StatusCode::kOk},
      {"FailedKeepsTheExitCode",
       R"j({"status":"failed","exit_code":3,"signal":null,"stdout":"","stderr":"x"})j",
       R"j({"stdout":"","stderr":"x","output":"x","code":3,"signal":null,"cpu_time":null,
            "wall_time":null,"memory":null})j",
       StatusCode::kOk},
      {"SignalMeansNullCode",
       R"j({"status":"failed","exit_code":139,"signal":"SIGSEGV","stdout":"","stderr":""})j",
       R"j({"stdout":"","stderr":"","output":"","code":null,"signal":"SIGSEGV","cpu_time":null,
            "wall_time":null,"memory":null})j",
       StatusCode::kOk},
      {"TimeoutIsSigkill",
       R"j({"status":"timeout","exit_code":null,"signal":null,"stdout":"a","stderr":""})j",
       R"j({"stdout":"a","stderr":"","output":"a","code":null,"signal":"SIGKILL","cpu_time":null,
            "wall_time":null,"memory":null})j",
       StatusCode::kOk},
      {"OomIsSigkill",
       R"j({"status":"oom","exit_code":137,"signal":null,"stdout":"","stderr":""})j",
       R"j({"stdout":"","stderr":"","output":"","code":null,"signal":"SIGKILL","cpu_time":null,
            "wall_time":null,"memory":null})j",
       StatusCode::kOk},
      {"EngineErrorIsUnavailable",
       R"j({"status":"error","error":{"code":"engine_unavailable","message":"down"}})j", nullptr,
       StatusCode::kUnavailable},
      {"OtherErrorIsInternal",
       R"j({"status":"error","error":{"code":"image_missing","message":"no image"}})j", nullptr,
       StatusCode::kInternal},
  };
  PistonCall call{"python", "3.11.0", json::object()};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto answer = PistonResponseJson(call, json::parse(c.result));
    if (c.run == nullptr) {
      ASSERT_FALSE(answer.ok());
      EXPECT_EQ(answer.status().code(), c.code);
      continue;
    }
    ASSERT_TRUE(answer.ok()) << answer.status().ToString();
    EXPECT_EQ((*answer)["language"], "python");
    EXPECT_EQ((*answer)["version"], "3.11.0");
    EXPECT_EQ((*answer)["run"], json::parse(c.run));
  }
}

TEST(PistonResponseJsonTest, ACompiledLanguageHasACompileStageAndNoRunWhenItFailed) {
  PistonCall call{"cpp", "12.0.0", json::object()};
  auto built = PistonResponseJson(call, json::parse(R"j({"status":"succeeded","exit_code":0,
      "stdout":"hi\n","stderr":"","compile":{"status":"succeeded","exit_code":0,"signal":null,
      "output":"a warning","metrics":{"cpu_ms":300,"run_ms":400,"memory_peak_bytes":9}}})j"));
  ASSERT_TRUE(built.ok());
  EXPECT_EQ((*built)["compile"], json::parse(R"j({"stdout":"","stderr":"a warning",
      "output":"a warning","code":0,"signal":null,"cpu_time":300,"wall_time":400,"memory":9})j"));
  EXPECT_EQ((*built)["run"]["stdout"], "hi\n");
  auto broken = PistonResponseJson(call, json::parse(R"j({"status":"failed","exit_code":null,
      "stdout":"","stderr":"","compile":{"status":"timeout","exit_code":null,"signal":null,
      "output":"","metrics":{}},"error":{"code":"compile_error","message":"m"}})j"));
  ASSERT_TRUE(broken.ok());
  EXPECT_EQ((*broken)["compile"]["signal"], "SIGKILL");
  EXPECT_FALSE(broken->contains("run")) << *broken;
}

TEST(PistonPackagesTest, EveryConfiguredRuntimeIsAnInstalledPackage) {
  json packages = PistonPackagesJson(TestConfig());
  EXPECT_EQ(packages, json::parse(R"j([
      {"language":"python","language_version":"3.11.0","installed":true},
      {"language":"javascript","language_version":"20.0.0","installed":true},
      {"language":"typescript","language_version":"5.0.0","installed":true},
      {"language":"bash","language_version":"5.0.0","installed":true},
      {"language":"c","language_version":"12.0.0","installed":true},
      {"language":"cpp","language_version":"12.0.0","installed":true},
      {"language":"go","language_version":"1.19.0","installed":true},
      {"language":"java","language_version":"17.0.0","installed":true},
      {"language":"rust","language_version":"1.63.0","installed":true}])j"));
}

struct PackageCase {
  const char* name;
  const char* body;
  const char* language;  // The runtime resolved, or nullptr when an error is expected.
  const char* reason = "";
};

TEST(ResolvePistonPackageTest, Table) {
  const PackageCase cases[] = {
      {"ExactVersion", R"j({"language":"python","version":"3.11.0"})j", "python"},
      {"StarAndAlias", R"j({"language":"node","version":"*"})j", "javascript"},
      {"MissingVersion", R"j({"language":"sh"})j", "bash"},
      {"TypescriptAlias", R"j({"language":"tsc","version":"5.0.3"})j", "typescript"},
      {"UnknownLanguageIsNotFound", R"j({"language":"cobol","version":"*"})j", nullptr,
       "unknown_package"},
      {"UnknownVersionIsNotFound", R"j({"language":"python","version":"2.7"})j", nullptr,
       "unknown_package"},
      {"MissingLanguage", R"j({"version":"*"})j", nullptr, "invalid_request"},
      {"NotAnObject", R"j([1,2])j", nullptr, "invalid_request"},
      {"NotJson", "language=python", nullptr, "invalid_json"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto rt = ResolvePistonPackage(c.body, TestConfig());
    if (c.language == nullptr) {
      ASSERT_FALSE(rt.ok());
      EXPECT_EQ(rt.status().reason(), c.reason);
      continue;
    }
    ASSERT_TRUE(rt.ok()) << rt.status().ToString();
    EXPECT_EQ(rt->language, c.language);
  }
}

TEST(PistonErrorJsonTest, HasPistonMessageAndOurError) {
  json j = PistonErrorJson(InvalidArgumentError("python-9 runtime is unknown", "unknown_runtime"));
  EXPECT_EQ(j["message"], "python-9 runtime is unknown");
  EXPECT_EQ(j["error"]["code"], "unknown_runtime");
  EXPECT_EQ(j["error"]["message"], "python-9 runtime is unknown");
}

}  // namespace
}  // namespace coderunner::api
