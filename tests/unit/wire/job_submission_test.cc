#include "coderunner/wire/job_submission.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace coderunner::wire {
namespace {

using nlohmann::json;

SubmissionRules Rules() {
  SubmissionRules rules;
  rules.check_callback_url = [](const std::string& url) {
    return url.rfind("https://", 0) == 0
               ? OkStatus()
               : InvalidArgumentError("not https", "invalid_callback_url");
  };
  return rules;
}

TEST(JobSubmissionTest, SplitsTheJobOnlyFieldsOffTheBody) {
  struct Case {
    const char* body;
    const char* callback_url;
    bool use_cache;
  };
  const Case cases[] = {
      {R"json({"code":"1"})json", "", true},
      {R"json({"code":"1","cache":false})json", "", false},
      {R"json({"code":"1","cache":null,"callback_url":null})json", "", true},
      {R"json({"code":"1","callback_url":"https://h/x","cache":true})json", "https://h/x", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto s = ParseJobSubmission(c.body, Rules());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->callback_url, c.callback_url);
    EXPECT_EQ(s->use_cache, c.use_cache);
    EXPECT_EQ(s->request.code, "1");
    EXPECT_EQ(s->body, json::parse(R"json({"code":"1"})json"));
  }
}

TEST(JobSubmissionTest, ErrorsInOrder) {
  struct Case {
    const char* body;
    const char* reason;
  };
  const Case cases[] = {
      {"", "invalid_json"},
      {"[1]", "invalid_request"},
      {R"json({"code":5,"callback_url":7})json", "invalid_request"},
      {R"json({"code":5,"callback_url":"http://h"})json", "invalid_callback_url"},
      {R"json({"code":"1","cache":1})json", "invalid_request"},
      {R"json({"code":"1","unknown":1})json", "invalid_request"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto s = ParseJobSubmission(c.body, Rules());
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().reason(), c.reason);
  }
}

TEST(JobSubmissionTest, AParsedBodyGivesWhatItsTextGives) {
  const char* body = R"json({"code":"print(1)","stdin":"x","cache":false})json";
  auto from_text = ParseJobSubmission(body, Rules());
  auto from_json = JobSubmissionFromJson(json::parse(body), Rules());
  ASSERT_TRUE(from_text.ok());
  ASSERT_TRUE(from_json.ok());
  EXPECT_EQ(from_text->body, from_json->body);
  EXPECT_EQ(from_text->request.stdin_data, from_json->request.stdin_data);
  EXPECT_EQ(from_text->use_cache, from_json->use_cache);
}

}  // namespace
}  // namespace coderunner::wire
