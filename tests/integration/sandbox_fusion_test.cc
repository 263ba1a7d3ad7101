// SandboxFusion's POST /run_code, with the requests and checks of
// SandboxFusion's own tests (sandbox/tests/runners/test_cpp.py and
// test_python.py of bytedance/SandboxFusion): each request is sent as
// their RunCodeRequest.model_dump() sends it, every field present.
#include <string>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

class SandboxFusionTest : public EngineTest {
 protected:
  // A RunCodeRequest with every field, as pydantic's model_dump() writes it.
  static json Request(const std::string& language, const std::string& code, double run_timeout) {
    return {{"compile_timeout", 10.0}, {"run_timeout", run_timeout},
            {"memory_limit_MB", -1},   {"code", code},
            {"stdin", nullptr},        {"language", language},
            {"files", json::object()}, {"fetch_files", json::array()}};
  }

  json RunCode(const json& request) {
    HttpAnswer a = server_->Post("/run_code", request.dump());
    EXPECT_EQ(a.status, 200) << a.body;
    return a.json;
  }
};

TEST_F(SandboxFusionTest, ACppProgramCompilesThenRuns) {
  json r = RunCode(Request("cpp",
                           "\n    #include <iostream>\n\n    int main() {\n        std::cout << "
                           "\"123\" << std::endl;\n        return 0;\n    }\n    ",
                           5));
  EXPECT_EQ(r["status"], "Success") << r.dump();
  EXPECT_EQ(r["compile_result"]["status"], "Finished");
  EXPECT_EQ(r["compile_result"]["return_code"], 0);
  EXPECT_EQ(r["run_result"]["status"], "Finished");
  EXPECT_EQ(r["run_result"]["stdout"], "123\n");
  EXPECT_EQ(r["run_result"]["return_code"], 0);
  EXPECT_TRUE(r["run_result"]["execution_time"].is_number()) << r.dump();
  for (const char* key : {"message", "executor_pod_name", "files"}) {
    EXPECT_TRUE(r.contains(key)) << key;
  }
}

TEST_F(SandboxFusionTest, ATimeoutAFailureAndACompileErrorAreFailed) {
  json sleeper = RunCode(Request("cpp",
                                 "#include <chrono>\n#include <thread>\nint main() {\n"
                                 "  std::this_thread::sleep_for(std::chrono::milliseconds(1000));\n"
                                 "  return 0;\n}\n",
                                 0.5));
  EXPECT_EQ(sleeper["status"], "Failed") << sleeper.dump();
  EXPECT_EQ(sleeper["run_result"]["status"], "TimeLimitExceeded");
  EXPECT_EQ(sleeper["run_result"]["return_code"], nullptr);

  json failing = RunCode(Request("python", "import sys\nprint('x')\nsys.exit(3)", 5));
  EXPECT_EQ(failing["status"], "Failed") << failing.dump();
  EXPECT_EQ(failing["run_result"]["return_code"], 3);
  EXPECT_EQ(failing["compile_result"], nullptr);

  json crashed =
      RunCode(Request("python", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", 5));
  EXPECT_EQ(crashed["run_result"]["return_code"], -11) << crashed.dump();

  json unbuilt = RunCode(Request("cpp", "int main( {", 5));
  EXPECT_EQ(unbuilt["status"], "Failed") << unbuilt.dump();
  EXPECT_NE(unbuilt["compile_result"]["return_code"], 0);
  EXPECT_NE(unbuilt["compile_result"]["stderr"].get<std::string>().find("error"),
            std::string::npos);
  EXPECT_EQ(unbuilt["run_result"], nullptr);
}

TEST_F(SandboxFusionTest, StdinFilesAndNodejsAreSandboxFusions) {
  json request = Request("nodejs",
                         "const fs = require('fs');\n"
                         "process.stdout.write(fs.readFileSync(0, 'utf8') + "
                         "fs.readFileSync('data.txt', 'utf8'));",
                         5);
  request["stdin"] = "in-";
  request["files"] = {{"data.txt", "ZmlsZQ=="}};
  json r = RunCode(request);
  EXPECT_EQ(r["status"], "Success") << r.dump();
  EXPECT_EQ(r["run_result"]["stdout"], "in-file");
}

TEST_F(SandboxFusionTest, WhatItsFastApiWouldRefuseIs422WithDetail) {
  struct Row {
    json request;
    const char* field;
  };
  json no_code = Request("python", "", 5);
  no_code.erase("code");
  json fetch = Request("python", "print(1)", 5);
  fetch["fetch_files"] = {"out.txt"};
  const Row rows[] = {
      {Request("cobol", "x", 5), "language"}, {no_code, "code"}, {fetch, "fetch_files"}};
  for (const Row& row : rows) {
    HttpAnswer a = server_->Post("/run_code", row.request.dump());
    EXPECT_EQ(a.status, 422) << a.body;
    ASSERT_TRUE(a.json["detail"].is_array()) << a.body;
    EXPECT_EQ(a.json["detail"][0]["loc"], (json{"body", row.field})) << a.body;
  }
}

}  // namespace
}  // namespace coderunner::testing
