// "inputs" (params.json) and the configurable input-file caps.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "coderunner/wire/execute_request.h"

namespace coderunner::wire {
namespace {

TEST(InputsTest, InputsBecomeParamsJsonInTheWorkspace) {
  config::Config c = config::DefaultConfig();
  auto req = ParseExecuteRequest(R"J({"code":"x","inputs":{"a":[1,2],"s":"q\"'$(x)"}})J",
                                 CapsFromConfig(c));
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  auto job = BuildJobSpec(*req, c, "job-1");
  ASSERT_TRUE(job.ok());
  ASSERT_EQ(job->files.size(), 1u);
  EXPECT_EQ(job->files[0].path, "params.json");
  EXPECT_EQ(nlohmann::json::parse(job->files[0].content),
            nlohmann::json::parse(R"J({"a":[1,2],"s":"q\"'$(x)"})J"));
}

TEST(InputsTest, CapsFromConfigAreEnforced) {
  config::Config c = config::DefaultConfig();
  c.files.max_count = 2;
  c.files.max_depth = 2;
  c.files.max_total_bytes = 10;
  c.files.max_inputs_bytes = 16;
  RequestCaps caps = CapsFromConfig(c);
  struct Case {
    const char* body;
    const char* mentions;
  };
  const Case cases[] = {
      {R"J({"code":"x","files":[{"path":"a","content":""},{"path":"b","content":""},{"path":"c","content":""}]})J",
       "entries"},
      {R"J({"code":"x","files":[{"path":"a/b/c","content":""}]})J", "deeper"},
      {R"J({"code":"x","files":[{"path":"a","content":"123456"},{"path":"b","content":"123456"}]})J",
       "bytes in total"},
      {R"J({"code":"x","inputs":{"k":"0123456789abcdef"}})J", "inputs"},
      {R"J({"code":"x","inputs":{},"files":[{"path":"params.json","content":""}]})J", "reserved"},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.body);
    auto r = ParseExecuteRequest(k.body, caps);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(k.mentions), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace coderunner::wire
