#include "intent/prompts.h"

#include <gtest/gtest.h>

#include <string>

#include "intent/intent_progress.h"

namespace coderunner::intent {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PromptsTest, CodePromptNamesInputsAndTypesNeverValues) {
  Preamble preamble;
  preamble.variables = {{"a", "integer"}, {"items", "array"}, {"secret", "string"}};
  AgentProfile agent;
  agent.system_prompt = "You write Python.";
  agent.conventions = {"stdlib only"};
  CodeTask task{"add things", "python", "main.py", &preamble, false};
  auto messages = CodeMessages(agent, task);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].role, "system");
  EXPECT_TRUE(Has(messages[0].content, "You write Python."));
  EXPECT_TRUE(Has(messages[0].content, "stdlib only"));
  const std::string& user = messages[1].content;
  const char* wanted[] = {"add things",           "- a: integer",       "- items: array",
                          "params.json",          "/workspace/main.py", "```python",
                          "Language: Python 3.11"};
  for (const char* w : wanted) EXPECT_TRUE(Has(user, w)) << w << "\n" << user;
  EXPECT_FALSE(Has(user, "/output")) << "no volume, no /output advice";
}

TEST(PromptsTest, EachLanguageHasItsNameAndFence) {
  const struct {
    const char* language;
    const char* file;
    const char* name;
    const char* fence;
  } cases[] = {
      {"python", "main.py", "Language: Python 3.11", "```python"},
      {"javascript", "main.js", "Language: JavaScript (Node.js 20, CommonJS)", "```javascript"},
      {"typescript", "main.ts", "Language: TypeScript (Node.js 20, run as tsx runs it)", "```ts"},
      {"bash", "main.sh", "Language: Bash 5.2", "```bash"},
  };
  AgentProfile agent;
  for (const auto& c : cases) {
    CodeTask task{"add things", c.language, c.file, nullptr, false};
    const std::string user = CodeMessages(agent, task)[1].content;
    EXPECT_TRUE(Has(user, c.name)) << user;
    EXPECT_TRUE(Has(user, c.fence)) << user;
    EXPECT_TRUE(Has(user, std::string("/workspace/") + c.file)) << user;
  }
}

TEST(PromptsTest, FixMessageCarriesTheErrorTheLineAndTheTraceback) {
  FailedAttempt failed;
  failed.outcome = "exited with code 1";
  failed.error = {"KeyError", "'missing'", 2};
  failed.stderr_tail = "Traceback (most recent call last):\n  ...\nKeyError: 'missing'\n";
  std::string m = FixMessage(failed);
  const char* wanted[] = {"exited with code 1", "KeyError: 'missing'", "line 2 of your code",
                          "Traceback (most recent call last)", "minimal fix"};
  for (const char* w : wanted) EXPECT_TRUE(Has(m, w)) << w << "\n" << m;
  FailedAttempt none;
  none.no_code = true;
  EXPECT_TRUE(Has(FixMessage(none), "no program"));
}

TEST(PromptsTest, QuotedDataCannotCloseItsFence) {
  // Output with a fence of its own stays inside ours.
  auto messages = FormatMessages("t", "", "```\nresult\n```");
  EXPECT_TRUE(Has(messages[1].content, "````\n```\nresult\n```\n````")) << messages[1].content;
}

TEST(PromptsTest, FormatPromptSeesAtMost4KiBOfOutput) {
  std::string big(100000, 'x');
  auto messages = FormatMessages("t", "{\"a\":1}", big);
  EXPECT_LT(messages[1].content.size(), 6000u);
  EXPECT_TRUE(Has(messages[1].content, "{\"a\":1}"));
}

TEST(PromptsTest, TheChecksPromptHasTheCodeAndNoLanguageLine) {
  // "Language: " marks the code-writing prompt (the scripted model's tests
  // tell the prompts apart by it); the checks see the code, the inputs'
  // names and where the output is, and each language's comment marker.
  Preamble preamble;
  preamble.variables = {{"xs", "array"}};
  const struct {
    const char* language;
    const char* file;
    const char* marker;
  } cases[] = {{"python", "main.py", "`# checks`"},
               {"javascript", "main.js", "`// checks`"},
               {"typescript", "main.ts", "`// checks`"},
               {"bash", "main.sh", "`# checks`"}};
  for (const auto& c : cases) {
    CodeTask task{"top 3 of xs", c.language, c.file, &preamble, false};
    auto messages = ChecksMessages({&task, "PROGRAM-TEXT\n", "checks.x"});
    ASSERT_EQ(messages.size(), 2u);
    const std::string& user = messages[1].content;
    EXPECT_FALSE(Has(user, "Language: ")) << user;
    for (const char* w : {"top 3 of xs", "PROGRAM-TEXT", "/tmp/program_stdout.txt", "xs (array)",
                          "CHECK PASS example", c.marker}) {
      EXPECT_TRUE(Has(user, w)) << c.language << ": " << w << "\n" << user;
    }
  }
}

TEST(PromptsTest, AfterFailedChecksTheModelMayFixTheProgramOrSayACheckIsWrong) {
  FailedChecks failed;
  failed.failed = {"property largest first: got [5, 7, 9]"};
  failed.checks_code = "# checks\nCHECKS-TEXT\n";
  std::string m = ChecksFixMessage(failed, "python");
  for (const char* w : {"1 of its checks failed", "- property largest first: got [5, 7, 9]",
                        "CHECKS-TEXT", "minimal fix", "Wrong check: <name>: <why>", "`# checks`"}) {
    EXPECT_TRUE(Has(m, w)) << w << "\n" << m;
  }
  failed.broken = true;
  failed.failed.clear();
  failed.checks_output_tail = "Traceback: NameError";
  m = ChecksFixMessage(failed, "javascript");
  EXPECT_TRUE(Has(m, "did not: they crashed or reported no check")) << m;
  EXPECT_TRUE(Has(m, "Traceback: NameError")) << m;
  EXPECT_TRUE(Has(m, "`// checks`")) << m;
  FailedChecks judged;
  judged.judge_problem = "prints 10 values, the task asks for 5";
  m = ChecksFixMessage(judged, "python");
  EXPECT_TRUE(Has(m, "does not answer the task as asked: prints 10 values")) << m;
  auto judge = JudgeMessages("top 5", "", "1\n2\n");
  EXPECT_TRUE(Has(judge[1].content, "answers the task as asked")) << judge[1].content;
  EXPECT_TRUE(Has(judge[1].content, "{\"answers\": false, \"problem\"")) << judge[1].content;
}

TEST(IntentProgressTest, StagesKeepTheirFirstStartAcrossRetries) {
  IntentProgress p("add", "default");
  p.Start(Stage::kGenerateCode, "attempt 1 of 3", 1000);
  p.End(Stage::kGenerateCode, StageStatus::kSucceeded, "ok", 2000);
  p.Start(Stage::kGenerateCode, "attempt 2 of 3", 5000);
  nlohmann::json s = p.StageJson(Stage::kGenerateCode);
  EXPECT_EQ(s["name"], "generate_code");
  EXPECT_EQ(s["status"], "running");
  EXPECT_EQ(s["started_at"], "1970-01-01T00:00:01.000Z");
  EXPECT_TRUE(s["finished_at"].is_null());
  EXPECT_EQ(s["detail"], "attempt 2 of 3");
  nlohmann::json all = p.ToJson();
  ASSERT_EQ(all["stages"].size(), 4u);
  EXPECT_EQ(all["stages"][0]["status"], "pending");
  EXPECT_EQ(all["stages"][3]["name"], "format_result");
  EXPECT_TRUE(all["answer"].is_null());
  EXPECT_TRUE(all["error"].is_null());
}

TEST(IntentProgressTest, UsageAddsUpTokensCallsAndExecutionTime) {
  IntentProgress p("add", "default");
  ChatReply r;
  r.prompt_tokens = 100;
  r.completion_tokens = 20;
  p.AddUsage(r);
  p.AddUsage(r);
  p.AddExecMs(150);
  EXPECT_EQ(p.tokens_used(), 240);
  nlohmann::json u = p.ToJson()["usage"];
  EXPECT_EQ(u["llm_calls"], 2);
  EXPECT_EQ(u["prompt_tokens"], 200);
  EXPECT_EQ(u["exec_ms"], 150);
}

}  // namespace
}  // namespace coderunner::intent
