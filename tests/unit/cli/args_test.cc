#include "cli/args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::cli {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using Argv = std::vector<std::string>;

struct RunCase {
  const char* name;
  Argv argv;
  bool ok;
  const char* error_part;  // ok == false: part of the message.
};

class RunArgsTest : public ::testing::TestWithParam<RunCase> {};

TEST_P(RunArgsTest, AcceptsOrRefusesWithAOneLineMessage) {
  const RunCase& c = GetParam();
  auto r = ParseRunArgs(c.argv);
  EXPECT_EQ(r.ok(), c.ok) << (r.ok() ? "" : r.status().message());
  if (!c.ok && !r.ok()) {
    EXPECT_THAT(r.status().message(), HasSubstr(c.error_part));
    EXPECT_EQ(r.status().reason(), "usage");
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RunArgsTest,
    ::testing::Values(
        RunCase{"file", {"x.py"}, true, ""}, RunCase{"dash", {"-"}, true, ""},
        RunCase{"help_alone", {"--help"}, true, ""},
        RunCase{"no_source", {}, false, "name a program file"},
        RunCase{"two_sources", {"a.py", "b.py"}, false, "unexpected argument 'b.py'"},
        RunCase{"unknown_option", {"--frobnicate", "x.py"}, false, "unknown option --frobnicate"},
        RunCase{"missing_value", {"x.py", "--lang"}, false, "--lang needs a value"},
        RunCase{
            "bad_timeout", {"--timeout", "soon", "x.py"}, false, "--timeout expects an integer"},
        RunCase{"zero_memory",
                {"--memory=0", "x.py"},
                false,
                "--memory expects an integer of at least 1"},
        RunCase{"stdin_twice", {"-", "--stdin", "-"}, false, "already comes from stdin"}),
    [](const ::testing::TestParamInfo<RunCase>& info) { return info.param.name; });

TEST(ParseRunArgsTest, EveryOptionLandsInItsField) {
  auto r = ParseRunArgs({"--lang",     "bash",           "--stdin", "in.txt", "--file",
                         "a.csv",      "--file=b/c.txt", "--arg",   "x",      "--timeout",
                         "5000",       "--memory",       "1048576", "--json", "--server",
                         "http://h:1", "prog.sh",        "--",      "y",      "--not-an-option"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->source, "prog.sh");
  EXPECT_EQ(r->language, "bash");
  EXPECT_EQ(r->stdin_path, "in.txt");
  EXPECT_EQ(r->files, (Argv{"a.csv", "b/c.txt"}));
  EXPECT_EQ(r->args, (Argv{"x", "y", "--not-an-option"}));
  EXPECT_EQ(r->timeout_ms, 5000);
  EXPECT_EQ(r->memory_bytes, 1048576);
  EXPECT_TRUE(r->common.json);
  EXPECT_EQ(r->common.server, "http://h:1");
}

TEST(ParseRunArgsTest, ProgramAfterDashesIsTheSource) {
  auto r = ParseRunArgs({"--", "-weird-name.py", "a"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->source, "-weird-name.py");
  EXPECT_EQ(r->args, (Argv{"a"}));
}

TEST(ParseIntentArgsTest, InputsAreTypedAndTheIntentIsKept) {
  auto r = ParseIntentArgs({"add 2 numbers together", "--input", "a=1", "--input", "b=1.5",
                            "--input", "name=Bob", "--lang", "python", "--verify", "checks"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->intent, "add 2 numbers together");
  EXPECT_EQ(r->language, "python");
  EXPECT_EQ(r->verify, "checks");
  EXPECT_EQ(r->inputs, (json{{"a", 1}, {"b", 1.5}, {"name", "Bob"}}));
}

struct BadCase {
  const char* name;
  Argv argv;
  const char* error_part;
};

class IntentArgsErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(IntentArgsErrorTest, RefusesWithUsage) {
  auto r = ParseIntentArgs(GetParam().argv);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(GetParam().error_part));
  EXPECT_EQ(r.status().reason(), "usage");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, IntentArgsErrorTest,
    ::testing::Values(BadCase{"no_intent", {}, "say what to do"},
                      BadCase{"empty_intent", {""}, "say what to do"},
                      BadCase{"no_equals", {"x", "--input", "a"}, "--input expects NAME=VALUE"},
                      BadCase{"no_name", {"x", "--input", "=1"}, "--input expects NAME=VALUE"},
                      BadCase{"twice", {"x", "--input", "a=1", "--input", "a=2"}, "given twice"},
                      BadCase{"two_intents", {"x", "y"}, "unexpected argument 'y'"},
                      BadCase{"bad_verify",
                              {"x", "--verify", "on"},
                              "--verify expects off, checks or full, not 'on'"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return info.param.name; });

struct InputCase {
  const char* text;
  json want;
};

class InputValueTest : public ::testing::TestWithParam<InputCase> {};

TEST_P(InputValueTest, JsonWhenItParsesElseString) {
  EXPECT_EQ(InputValue(GetParam().text), GetParam().want) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, InputValueTest,
    ::testing::Values(InputCase{"1", 1}, InputCase{"-2.5", -2.5}, InputCase{"true", true},
                      InputCase{"false", false}, InputCase{"[1,2]", json::array({1, 2})},
                      InputCase{R"({"k":1})", json{{"k", 1}}}, InputCase{R"("quoted")", "quoted"},
                      InputCase{"hello", "hello"}, InputCase{"", ""}, InputCase{"1 2", "1 2"},
                      InputCase{"[1,", "[1,"}, InputCase{"a=b", "a=b"}));

struct SandboxCase {
  const char* name;
  Argv argv;
  bool ok;
  const char* action_or_error;
};

class SandboxArgsTest : public ::testing::TestWithParam<SandboxCase> {};

TEST_P(SandboxArgsTest, ActionsTakeTheirOwnArguments) {
  const SandboxCase& c = GetParam();
  auto r = ParseSandboxArgs(c.argv);
  ASSERT_EQ(r.ok(), c.ok) << (r.ok() ? r->action : r.status().message());
  if (c.ok) {
    EXPECT_EQ(r->action, c.action_or_error);
  } else {
    EXPECT_THAT(r.status().message(), HasSubstr(c.action_or_error));
    EXPECT_EQ(r.status().reason(), "usage");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SandboxArgsTest,
    ::testing::Values(
        SandboxCase{"create", {"create", "--lang", "bash", "--ttl", "60"}, true, "create"},
        SandboxCase{"exec_file", {"exec", "sbx-1", "x.py"}, true, "exec"},
        SandboxCase{"exec_code", {"exec", "sbx-1", "-c", "print(1)"}, true, "exec"},
        SandboxCase{"exec_stdin", {"exec", "sbx-1"}, true, "exec"},
        SandboxCase{"rm", {"rm", "sbx-1"}, true, "rm"}, SandboxCase{"ls", {"ls"}, true, "ls"},
        SandboxCase{"help", {"--help"}, true, ""},
        SandboxCase{"no_action", {}, false, "name an action"},
        SandboxCase{"bad_action", {"start"}, false, "unknown action 'start'"},
        SandboxCase{"rm_no_id", {"rm"}, false, "rm needs a sandbox id"},
        SandboxCase{"exec_no_id", {"exec"}, false, "exec needs a sandbox id"},
        SandboxCase{"exec_both", {"exec", "sbx-1", "x.py", "-c", "1"}, false, "not both"},
        SandboxCase{"ttl_on_exec", {"exec", "sbx-1", "--ttl", "5"}, false, "belong to create"},
        SandboxCase{"c_on_create", {"create", "-c", "x"}, false, "belong to exec"},
        SandboxCase{"rm_extra", {"rm", "sbx-1", "sbx-2"}, false, "unexpected argument 'sbx-2'"},
        SandboxCase{"bad_ttl", {"create", "--ttl", "0"}, false, "--ttl expects an integer"}),
    [](const ::testing::TestParamInfo<SandboxCase>& info) { return info.param.name; });

TEST(ParseSandboxArgsTest, ExecWithoutCodeReadsStdin) {
  auto r = ParseSandboxArgs({"exec", "sbx-1", "--timeout", "100", "--file", "d.txt"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->id, "sbx-1");
  EXPECT_EQ(r->source, "-");
  EXPECT_FALSE(r->code.has_value());
  EXPECT_EQ(r->timeout_ms, 100);
  EXPECT_EQ(r->files, (Argv{"d.txt"}));
}

struct ServeCase {
  const char* name;
  Argv argv;
  bool ok;
  const char* config;
};

class ServeArgsTest : public ::testing::TestWithParam<ServeCase> {};

TEST_P(ServeArgsTest, ConfigFromFlagElseEnvironment) {
  auto r = ParseServeArgs(GetParam().argv, "/env.yaml");
  ASSERT_EQ(r.ok(), GetParam().ok);
  if (r.ok()) {
    EXPECT_EQ(r->config_path, GetParam().config);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ServeArgsTest,
    ::testing::Values(ServeCase{"none", {}, true, "/env.yaml"},
                      ServeCase{"flag", {"--config", "/x.yaml"}, true, "/x.yaml"},
                      ServeCase{"flag_without_value", {"--config"}, false, ""},
                      ServeCase{"unknown", {"--port", "1"}, false, ""}),
    [](const ::testing::TestParamInfo<ServeCase>& info) { return info.param.name; });

struct McpCase {
  const char* name;
  Argv argv;
  const char* server;      // ok: the --server given ("" for none).
  const char* error_part;  // "" = accepted; else part of the usage error.
};

class McpArgsTest : public ::testing::TestWithParam<McpCase> {};

TEST_P(McpArgsTest, OnlyTheServerAndHelp) {
  const McpCase& c = GetParam();
  auto r = ParseMcpArgs(c.argv);
  ASSERT_EQ(r.ok(), std::string(c.error_part).empty()) << (r.ok() ? "" : r.status().message());
  if (r.ok()) {
    EXPECT_EQ(r->common.server, c.server);
  } else {
    EXPECT_THAT(r.status().message(), HasSubstr(c.error_part));
    EXPECT_EQ(r.status().reason(), "usage");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, McpArgsTest,
    ::testing::Values(McpCase{"none", {}, "", ""},
                      McpCase{"server", {"--server", "http://h:1"}, "http://h:1", ""},
                      McpCase{"server_inline", {"--server=http://h:2"}, "http://h:2", ""},
                      McpCase{"help", {"-h"}, "", ""},
                      McpCase{"json_refused", {"--json"}, "", "--json does not apply"},
                      McpCase{"positional_refused", {"x"}, "", "unexpected argument 'x'"},
                      McpCase{"unknown_option", {"--lang", "py"}, "", "unknown option --lang"}),
    [](const ::testing::TestParamInfo<McpCase>& info) { return info.param.name; });

struct LanguageCase {
  const char* path;
  const char* want;  // "" = refused.
};

class LanguageFromPathTest : public ::testing::TestWithParam<LanguageCase> {};

TEST_P(LanguageFromPathTest, ByExtension) {
  auto r = LanguageFromPath(GetParam().path);
  if (std::string(GetParam().want).empty()) {
    ASSERT_FALSE(r.ok()) << *r;
    EXPECT_THAT(r.status().message(), HasSubstr("pass --lang"));
  } else {
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(*r, GetParam().want);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LanguageFromPathTest,
    ::testing::Values(
        LanguageCase{"a.py", "python"}, LanguageCase{"dir/a.js", "javascript"},
        LanguageCase{"a.mjs", "javascript"}, LanguageCase{"dir/main.ts", "typescript"},
        LanguageCase{"a.mts", "typescript"}, LanguageCase{"a.d.ts.bak", ""},
        LanguageCase{"/x/run.sh", "bash"}, LanguageCase{"a.bash", "bash"}, LanguageCase{"a.rb", ""},
        LanguageCase{"Makefile", ""}, LanguageCase{".py", ""}, LanguageCase{"a.py.txt", ""},
        LanguageCase{"dir.py/x", ""}, LanguageCase{"-", ""}, LanguageCase{"sum.c", "c"},
        LanguageCase{"a.cc", "cpp"}, LanguageCase{"b.cpp", "cpp"}, LanguageCase{"c.cxx", "cpp"},
        LanguageCase{"main.go", "go"}, LanguageCase{"Main.java", "java"},
        LanguageCase{"x.rs", "rust"}));

struct JobPathCase {
  const char* local;
  const char* job;
};

class JobPathForTest : public ::testing::TestWithParam<JobPathCase> {};

TEST_P(JobPathForTest, RelativePathsStayElseTheName) {
  EXPECT_EQ(JobPathFor(GetParam().local), GetParam().job);
}

INSTANTIATE_TEST_SUITE_P(Cases, JobPathForTest,
                         ::testing::Values(JobPathCase{"data.csv", "data.csv"},
                                           JobPathCase{"data/x.csv", "data/x.csv"},
                                           JobPathCase{"/tmp/abc/data.csv", "data.csv"},
                                           JobPathCase{"../up/data.csv", "data.csv"},
                                           JobPathCase{"./data.csv", "data.csv"},
                                           JobPathCase{"a//b", "b"}, JobPathCase{"dir/", "dir"}));

}  // namespace
}  // namespace coderunner::cli
