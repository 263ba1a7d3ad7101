#include "coderunner/wire/execute_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::wire {
namespace {

using ::testing::HasSubstr;

StatusOr<ExecuteRequest> Parse(const std::string& body, const RequestCaps& caps = {}) {
  return ParseExecuteRequest(body, caps);
}

std::string Nested(int depth) {
  return R"({"code":"x","stdin":)" + std::string(depth, '[') + std::string(depth, ']') + "}";
}

TEST(ParseExecuteRequestTest, MinimalRequest) {
  auto r = Parse(R"j({"code":"print(1)"})j");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->code, "print(1)");
  EXPECT_FALSE(r->language.has_value());
  EXPECT_EQ(r->stdin_data, "");
  EXPECT_TRUE(r->args.empty());
  EXPECT_TRUE(r->files.empty());
  EXPECT_FALSE(r->limits.timeout_ms.has_value());
  EXPECT_FALSE(r->limits.cpus.has_value());
  EXPECT_EQ(r->output_encoding, OutputEncoding::kUtf8);
}

TEST(ParseExecuteRequestTest, FullRequest) {
  auto r = Parse(R"({
    "language": "bash", "code": "echo $1", "stdin": "in\u0000put", "args": ["a", "", "c d"],
    "files": [{"path": "data/x.txt", "content": "plain"},
              {"path": "bin.dat", "content": "AAH/", "encoding": "base64"},
              {"path": "u.txt", "content": "é", "encoding": "utf8"}],
    "limits": {"timeout_ms": 5000, "cpu_ms": 4000, "memory_bytes": 67108864, "pids": 10,
               "output_bytes": 100, "tmp_bytes": 2097152, "cpus": 0.5},
    "output_encoding": "base64"})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->language, "bash");
  EXPECT_EQ(r->code, "echo $1");
  EXPECT_EQ(r->stdin_data, std::string("in\0put", 6));
  EXPECT_EQ(r->args, (std::vector<std::string>{"a", "", "c d"}));
  ASSERT_EQ(r->files.size(), 3u);
  EXPECT_EQ(r->files[0].path, "data/x.txt");
  EXPECT_EQ(r->files[0].content, "plain");
  EXPECT_EQ(r->files[1].content, std::string("\0\1\xff", 3));
  EXPECT_EQ(r->files[2].content, "\xC3\xA9");
  EXPECT_EQ(r->limits.timeout_ms, 5000);
  EXPECT_EQ(r->limits.cpu_ms, 4000);
  EXPECT_EQ(r->limits.memory_bytes, 67108864);
  EXPECT_EQ(r->limits.pids, 10);
  EXPECT_EQ(r->limits.output_bytes, 100);
  EXPECT_EQ(r->limits.tmp_bytes, 2097152);
  EXPECT_EQ(r->limits.cpus, 0.5);
  EXPECT_EQ(r->output_encoding, OutputEncoding::kBase64);
}

TEST(ParseExecuteRequestTest, NullFieldsAreTreatedAsAbsent) {
  auto r =
      Parse(R"({"code":"x","language":null,"stdin":null,"args":null,"files":null,"limits":null,)"
            R"("output_encoding":null})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->language.has_value());
  auto l = Parse(R"({"code":"x","limits":{"pids":null,"cpus":null}})");
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_FALSE(l->limits.pids.has_value());
  EXPECT_FALSE(l->limits.cpus.has_value());
}

TEST(ParseExecuteRequestTest, IntegerCpusIsAccepted) {
  auto r = Parse(R"({"code":"x","limits":{"cpus":2}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->limits.cpus, 2.0);
}

TEST(ParseExecuteRequestTest, MalformedJsonIsInvalidJsonAndDeepJsonTooDeep) {
  std::string deep_objects = R"({"code":"x","limits":)";
  for (int i = 0; i < 100; ++i) deep_objects += R"({"a":)";
  deep_objects += "1" + std::string(101, '}');
  struct Case {
    const char* name;
    std::string body;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"empty", "", "invalid_json"},
      {"whitespace", "  \n", "invalid_json"},
      {"unclosed", R"({"code":"x")", "invalid_json"},
      {"missing value", R"({"code":})", "invalid_json"},
      {"trailing comma", R"({"code":"x",})", "invalid_json"},
      {"trailing garbage", R"({"code":"x"} extra)", "invalid_json"},
      {"single quotes", "{'code':'x'}", "invalid_json"},
      {"bare word", "code", "invalid_json"},
      {"invalid UTF-8 in string", "{\"code\":\"\xff\"}", "invalid_json"},
      {"lone surrogate escape", R"({"code":"\ud800"})", "invalid_json"},
      {"deep nesting 100", Nested(100), "json_too_deep"},
      {"deep nesting 100000", Nested(100000), "json_too_deep"},
      {"deep objects", deep_objects, "json_too_deep"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Parse(c.body);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().reason(), c.reason);
  }
}

TEST(ParseExecuteRequestTest, NestingWithinTheCapIsNotInvalidJson) {
  RequestCaps caps;
  caps.max_json_depth = 8;
  // Depth 3 ({ -> limits { -> value): fine even with a small cap.
  EXPECT_TRUE(Parse(R"({"code":"x","limits":{"pids":3}})", caps).ok());
  // Too deep for this cap, though fine for the default one.
  auto r = Parse(Nested(20), caps);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), "json_too_deep");
  // Shallow nesting passes the guard and fails only on the type.
  auto t = Parse(Nested(2));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().reason(), "invalid_request");
}

TEST(ParseExecuteRequestTest, FieldErrorsAreInvalidRequestNamingTheField) {
  struct Case {
    const char* name;
    std::string body;
    std::string field;
  };
  const std::vector<Case> cases = {
      {"body is an array", "[]", "body"},
      {"body is a string", R"("code")", "body"},
      {"body is null", "null", "body"},
      {"missing code", "{}", "code"},
      {"null code", R"({"code":null})", "code"},
      {"code number", R"({"code":5})", "code"},
      {"code object", R"({"code":{}})", "code"},
      {"language number", R"({"code":"x","language":1})", "language"},
      {"stdin array", R"({"code":"x","stdin":["a"]})", "stdin"},
      {"args string", R"({"code":"x","args":"a b"})", "args"},
      {"volume_id number", R"({"code":"x","volume_id":7})", "volume_id"},
      {"args number element", R"({"code":"x","args":["a",1]})", "args"},
      {"args null element", R"({"code":"x","args":[null]})", "args"},
      {"args with NUL", R"({"code":"x","args":["a\u0000b"]})", "args"},
      {"files object", R"({"code":"x","files":{"a":"b"}})", "files"},
      {"files element string", R"({"code":"x","files":["a"]})", "files[0]"},
      {"files path number", R"({"code":"x","files":[{"path":1}]})", "files[0].path"},
      {"files path missing", R"({"code":"x","files":[{"content":"c"}]})", "files[0].path"},
      {"files content number", R"({"code":"x","files":[{"path":"a","content":1}]})",
       "files[0].content"},
      {"files encoding number", R"({"code":"x","files":[{"path":"a","content":"","encoding":1}]})",
       "files[0].encoding"},
      {"files encoding unknown",
       R"({"code":"x","files":[{"path":"a","content":"","encoding":"hex"}]})", "files[0].encoding"},
      {"limits array", R"({"code":"x","limits":[1]})", "limits"},
      {"limit string", R"({"code":"x","limits":{"timeout_ms":"5"}})", "limits.timeout_ms"},
      {"limit fraction", R"({"code":"x","limits":{"memory_bytes":1.5}})", "limits.memory_bytes"},
      {"limit bool", R"({"code":"x","limits":{"pids":true}})", "limits.pids"},
      {"limit cpu_ms object", R"({"code":"x","limits":{"cpu_ms":{}}})", "limits.cpu_ms"},
      {"limit output_bytes", R"({"code":"x","limits":{"output_bytes":"1"}})",
       "limits.output_bytes"},
      {"limit tmp_bytes", R"({"code":"x","limits":{"tmp_bytes":[]}})", "limits.tmp_bytes"},
      {"cpus string", R"({"code":"x","limits":{"cpus":"1"}})", "limits.cpus"},
      {"output_encoding number", R"({"code":"x","output_encoding":1})", "output_encoding"},
      {"output_encoding unknown", R"({"code":"x","output_encoding":"hex"})", "output_encoding"},
      {"unknown top-level field", R"({"code":"x","lang":"python"})", "lang"},
      {"unknown file field", R"({"code":"x","files":[{"path":"a","mode":"0755"}]})",
       "files[0].mode"},
      {"unknown limit", R"({"code":"x","limits":{"memory":1}})", "limits.memory"},
      {"bad base64", R"({"code":"x","files":[{"path":"a","content":"!!!","encoding":"base64"}]})",
       "files[0].content"},
      {"duplicate file path",
       R"({"code":"x","files":[{"path":"a/b","content":"1"},{"path":"a/b","content":"2"}]})",
       "files[1].path"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Parse(c.body);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().reason(), "invalid_request") << r.status().message();
    EXPECT_THAT(r.status().message(), HasSubstr(c.field));
  }
}

TEST(ParseExecuteRequestTest, HostileFilePathsAreInvalidPath) {
  const std::vector<std::string> paths = {
      "../escape", "/etc/passwd", "a/../../b",         "a//b", "./a", "a\\\\b",
      "a\\u0000b", "a\\nb",       ".coderunner-stdin", "a/"};
  for (const auto& p : paths) {
    SCOPED_TRACE(p);
    auto r = Parse(R"({"code":"x","files":[{"path":")" + p + R"(","content":"c"}]})");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().reason(), "invalid_path") << r.status().message();
  }
}

TEST(ParseExecuteRequestTest, HostileFilePathErrorNamesTheField) {
  for (const char* p : {"../escape", ".coderunner-stdin"}) {
    SCOPED_TRACE(p);
    auto r = Parse(std::string(R"({"code":"x","files":[{"path":"ok"},{"path":")") + p + R"("}]})");
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.status().message(), HasSubstr("files[1].path"));
  }
}

TEST(ParseExecuteRequestTest, FileDepthCapApplies) {
  RequestCaps caps;
  caps.max_file_depth = 2;
  EXPECT_TRUE(Parse(R"({"code":"x","files":[{"path":"a/b"}]})", caps).ok());
  auto r = Parse(R"({"code":"x","files":[{"path":"a/b/c"}]})", caps);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), "invalid_path");
}

TEST(ParseExecuteRequestTest, CountCapsApply) {
  RequestCaps caps;
  caps.max_files = 2;
  caps.max_args = 3;
  EXPECT_TRUE(Parse(R"({"code":"x","args":["1","2","3"]})", caps).ok());
  auto a = Parse(R"({"code":"x","args":["1","2","3","4"]})", caps);
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), HasSubstr("args"));
  auto f = Parse(R"({"code":"x","files":[{"path":"a"},{"path":"b"},{"path":"c"}]})", caps);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("files"));
}

class BuildJobSpecTest : public ::testing::Test {
 protected:
  ExecuteRequest Request(const std::string& body) {
    auto r = ParseExecuteRequest(body, {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ExecuteRequest{};
  }
  config::Config config_ = config::DefaultConfig();
};

TEST_F(BuildJobSpecTest, CopiesRequestAndUsesDefaultLanguage) {
  auto job = BuildJobSpec(
      Request(R"({"code":"c","stdin":"s","args":["a"],"files":[{"path":"f","content":"x"}],)"
              R"("limits":{"pids":10}})"),
      config_, "job-1");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->id, "job-1");
  EXPECT_EQ(job->language.name, "python");
  EXPECT_EQ(job->language.file, "main.py");
  EXPECT_EQ(job->code, "c");
  EXPECT_EQ(job->stdin_data, "s");
  EXPECT_EQ(job->args, std::vector<std::string>{"a"});
  ASSERT_EQ(job->files.size(), 1u);
  EXPECT_EQ(job->files[0].path, "f");
  EXPECT_EQ(job->limits.pids, 10);
  EXPECT_EQ(job->limits.timeout_ms, config_.default_limits.timeout_ms);
}

TEST_F(BuildJobSpecTest, VolumeIdIsCarriedUnresolved) {
  auto job = BuildJobSpec(Request(R"({"code":"c","volume_id":"vol-0123456789abcdef01234567"})"),
                          config_, "job-1");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->volume.id, "vol-0123456789abcdef01234567");
  EXPECT_EQ(job->volume.engine_name, "");  // Resolved by the executor, per run.
  auto none = BuildJobSpec(Request(R"({"code":"c"})"), config_, "job-2");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->volume.id, "");
}

TEST_F(BuildJobSpecTest, NamedLanguageIsUsed) {
  auto job = BuildJobSpec(Request(R"({"code":"c","language":"javascript"})"), config_, "j");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->language.image, "coderunner/node:20");
}

TEST_F(BuildJobSpecTest, UnknownLanguageListsTheKnownOnes) {
  auto job = BuildJobSpec(Request(R"({"code":"c","language":"cobol"})"), config_, "j");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(job.status().reason(), "unknown_language");
  for (const char* name : {"cobol", "python", "javascript", "bash"}) {
    EXPECT_THAT(job.status().message(), HasSubstr(name));
  }
}

TEST_F(BuildJobSpecTest, LimitsAreResolvedAgainstConfig) {
  struct Case {
    const char* limits;
    StatusCode code;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {R"({"timeout_ms":60001})", StatusCode::kFailedPrecondition, "limit_exceeded"},
      {R"({"memory_bytes":2147483648})", StatusCode::kFailedPrecondition, "limit_exceeded"},
      {R"({"cpus":2.5})", StatusCode::kFailedPrecondition, "limit_exceeded"},
      {R"({"timeout_ms":0})", StatusCode::kInvalidArgument, "invalid_limit"},
      {R"({"pids":-1})", StatusCode::kInvalidArgument, "invalid_limit"},
      {R"({"timeout_ms":60000,"cpus":2})", StatusCode::kOk, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.limits);
    auto job = BuildJobSpec(Request(std::string(R"({"code":"c","limits":)") + c.limits + "}"),
                            config_, "j");
    EXPECT_EQ(job.status().code(), c.code);
    if (!job.ok()) {
      EXPECT_EQ(job.status().reason(), c.reason);
    }
  }
}

TEST_F(BuildJobSpecTest, FileCollidingWithProgramFileIsRejected) {
  struct Case {
    const char* language;
    const char* path;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"python", "main.py", false},    {"python", "main.py/x", false},
      {"bash", "main.sh", false},      {"python", "main.sh", true},
      {"python", "main.py.bak", true}, {"python", "lib/main.py", true},
      {"python", "main.pyc", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.language) + " " + c.path);
    auto job = BuildJobSpec(Request(std::string(R"({"code":"c","language":")") + c.language +
                                    R"(","files":[{"path":")" + c.path + R"("}]})"),
                            config_, "j");
    EXPECT_EQ(job.ok(), c.ok) << job.status().ToString();
    if (!job.ok()) {
      EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(job.status().reason(), "invalid_path");
    }
  }
}

// A file "a" and a file "a/b" cannot both exist. The request must be refused
// as the client's error (400) before the job runs, instead of failing inside
// the runner as an internal workspace error.
TEST_F(BuildJobSpecTest, FileThatIsAlsoADirectoryOfAnotherFileIsRejected) {
  for (const char* files : {R"([{"path":"a"},{"path":"a/b"}])", R"([{"path":"a/b"},{"path":"a"}])",
                            R"([{"path":"d/a"},{"path":"d/a/b/c"}])"}) {
    SCOPED_TRACE(files);
    auto parsed = ParseExecuteRequest(std::string(R"({"code":"c","files":)") + files + "}", {});
    Status s = parsed.status();
    if (parsed.ok()) s = BuildJobSpec(*parsed, config_, "j").status();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  }
}

TEST_F(BuildJobSpecTest, RuntimeIsTierElseLanguageElseServiceDefault) {
  struct Case {
    const char* language;  // languages.python.runtime.
    const char* tier;      // tiers.<t>.runtime; nullptr = no tier at all.
    const char* want;      // JobSpec::runtime; "" = sandbox.runtime applies.
  };
  const Case cases[] = {
      {"", nullptr, ""},           {"runsc", nullptr, "runsc"},
      {"runc", nullptr, "runc"},   {"", "", ""},
      {"runsc", "", "runsc"},      {"", "runsc", "runsc"},
      {"runc", "runsc", "runsc"},  {"runsc", "runc", "runc"},
      {"runsc", "runsc", "runsc"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string("language '") + c.language + "' tier " +
                 (c.tier ? std::string("'") + c.tier + "'" : "none"));
    config::Config config = config::DefaultConfig();
    // The service-wide default never lands in the JobSpec: ContainerPolicy
    // applies it.
    config.sandbox.runtime = "runsc";
    for (auto& l : config.languages) {
      if (l.name == "python") l.runtime = c.language;
    }
    config::TierConfig tier = *config.FindTier("pro");
    if (c.tier != nullptr) tier.runtime = c.tier;
    auto job = BuildJobSpec(Request(R"({"code":"c","language":"python"})"), config, "j",
                            c.tier != nullptr ? &tier : nullptr);
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    EXPECT_EQ(job->runtime, c.want);
    // The language spec carries its own runtime unchanged.
    EXPECT_EQ(job->language.runtime, c.language);
  }
}

TEST_F(BuildJobSpecTest, RuntimeOfOneLanguageDoesNotLeakToAnother) {
  for (auto& l : config_.languages) {
    if (l.name == "bash") l.runtime = "runsc";
  }
  auto bash = BuildJobSpec(Request(R"({"code":"c","language":"bash"})"), config_, "j");
  auto python = BuildJobSpec(Request(R"({"code":"c","language":"python"})"), config_, "j");
  ASSERT_TRUE(bash.ok() && python.ok());
  EXPECT_EQ(bash->runtime, "runsc");
  EXPECT_EQ(python->runtime, "");
}

}  // namespace
}  // namespace coderunner::wire
