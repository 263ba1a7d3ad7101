// Execute mode end to end: a real service, a real engine, and a scripted
// OpenAI-compatible server (tests/fake_llm) standing in for the model.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/base64.h"
#include "coderunner/common/sha256.h"
#include "llm_engine_test.h"
#include "mcp_client.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

// A profile for intents no built-in agent fits well enough.
constexpr const char* kGenericAgent =
    R"({"name":"generic","description":"anything","keywords":["input","echo","width"],)"
    R"("system_prompt":"Write the smallest program that does the task."})";

std::string Fenced(const std::string& language, const std::string& code) {
  return "Here is the program:\n\n```" + language + "\n" + code + "\n```\n";
}

class IntentsTest : public LlmEngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "llm: {base_url: \"" + llm_->base_url() +
           "\", model: fake-model, timeout_ms: " + std::to_string(LlmTimeoutMs()) + "}\n";
  }
  virtual int64_t LlmTimeoutMs() const { return 10000; }

  // POST /v1/intents; the id of the accepted intent ("" on failure).
  std::string Submit(const json& body) {
    HttpAnswer a = server_->Post("/v1/intents", body.dump());
    EXPECT_EQ(a.status, 202) << a.body;
    EXPECT_EQ(a.json.value("kind", ""), "intent") << a.body;
    return a.json.is_object() ? a.json.value("id", "") : "";
  }

  // The record once terminal.
  json Wait(const std::string& id) {
    HttpAnswer a = server_->Get("/v1/jobs/" + id + "/wait?timeout_s=120");
    EXPECT_EQ(a.status, 200) << a.body;
    return a.json;
  }

  json Run(const json& body) { return Wait(Submit(body)); }

  static std::vector<std::string> StageStatuses(const json& record) {
    std::vector<std::string> out;
    for (const auto& s : record["stages"]) out.push_back(s.value("status", "?"));
    return out;
  }

  // The first code-writing prompt the model got at or after request `from`.
  std::string CodePrompt(size_t from = 0) const {
    for (size_t i = from; i < llm_->Requests().size(); ++i) {
      std::string m = llm_->LastUserMessage(i);
      if (m.find("Language: ") != std::string::npos) return m;
    }
    return "";
  }
};

using Statuses = std::vector<std::string>;
const Statuses kAllSucceeded = {"succeeded", "succeeded", "succeeded", "succeeded"};

TEST_F(IntentsTest, SeedExampleAddsTwoNumbersThroughFourStages) {
  // The code arrives after a second, so /events is connected while it runs.
  json code = CodeReply(Fenced("python", "print(a + b)"));
  code["delay_ms"] = 1000;
  llm_->Script({code, FormatReply("Result: 2")});
  std::string id = Submit({{"intent", "add 2 numbers together"}, {"inputs", {{"a", 1}, {"b", 1}}}});
  // The progress view: every stage change arrives on /events.
  std::vector<std::string> stage_events;
  server_->StreamLines("/v1/jobs/" + id + "/events", [&](const std::string& line, auto) {
    if (line.rfind("data: ", 0) == 0) {
      json d = json::parse(line.substr(6), nullptr, false);
      if (d.is_object() && d.contains("name") && d.contains("status")) {
        stage_events.push_back(d["name"].get<std::string>() + ":" + d["status"].get<std::string>());
      }
    }
    return line.rfind("event: result", 0) != 0;
  });
  json rec = Wait(id);
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["kind"], "intent");
  EXPECT_EQ(rec["answer"], "Result: 2");
  EXPECT_EQ(rec["result"]["stdout"], "2\n");
  EXPECT_EQ(rec["result"]["exit_code"], 0);
  EXPECT_EQ(rec["language"], "python");
  EXPECT_EQ(rec["language_source"], "default");
  ASSERT_EQ(rec["stages"].size(), 4u);
  const char* names[] = {"discover_agent", "generate_code", "execute", "format_result"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(rec["stages"][i]["name"], names[i]);
    EXPECT_FALSE(rec["stages"][i]["started_at"].is_null());
    EXPECT_FALSE(rec["stages"][i]["finished_at"].is_null());
  }
  EXPECT_EQ(StageStatuses(rec), kAllSucceeded);
  ASSERT_EQ(rec["attempts"].size(), 1u);
  EXPECT_EQ(rec["attempts"][0]["code"], "print(a + b)\n");
  EXPECT_EQ(rec["attempts"][0]["result"]["stdout"], "2\n");
  EXPECT_EQ(rec["agent"]["name"], "python-default");
  std::string seen;
  for (const auto& e : stage_events) seen += e + " ";
  for (const char* n : names) {
    EXPECT_NE(std::find(stage_events.begin(), stage_events.end(), std::string(n) + ":succeeded"),
              stage_events.end())
        << n << " not among the stage events: " << seen;
  }
  // The model was told the inputs' names and types, never their values.
  std::string prompt = CodePrompt();
  EXPECT_NE(prompt.find("- a: integer"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("add 2 numbers together"), std::string::npos);
  EXPECT_EQ(llm_->Requests().size(), 2u);
  EXPECT_EQ(llm_->Requests()[0]["body"]["model"], "fake-model");
}

TEST_F(IntentsTest, JavaScriptIntentRunsUnderNode) {
  llm_->Script({AgentReply({{"content", R"({"name":"js-strings","description":"string tricks",
      "keywords":["string","reverse"],"system_prompt":"Write tiny Node.js programs."})"}}),
                CodeReply(Fenced("javascript",
                                 "const r = s.split('').reverse().join('');\nconsole.log(r);")),
                FormatReply("Result: olleh")});
  json rec = Run({{"intent", "write a JavaScript function that reverses the string s"},
                  {"inputs", {{"s", "hello"}}}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["language"], "javascript");
  EXPECT_EQ(rec["language_source"], "intent");
  EXPECT_EQ(rec["result"]["stdout"], "olleh\n");
  EXPECT_EQ(rec["answer"], "Result: olleh");
  EXPECT_EQ(StageStatuses(rec), kAllSucceeded);
}

TEST_F(IntentsTest, TypeScriptIntentRunsUnderTsxWithItsInputs) {
  // The built-in typescript agent fits: no agent is written.
  llm_->Script(
      {CodeReply(Fenced("ts",
                        "const isPrime = (n: number): boolean => {\n"
                        "  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;\n"
                        "  return n > 1;\n"
                        "};\n"
                        "let total: number = 0;\n"
                        "for (let i = 2; i < limit; i++) if (isPrime(i)) total += i;\n"
                        "console.log(total + extra.reduce((a: number, b: number) => a + b));")),
       FormatReply("Result: 1063")});
  json rec = Run({{"intent", "sum the primes below 100 in TypeScript"},
                  {"inputs", {{"limit", 100}, {"extra", {1, 2}}}}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["language"], "typescript");
  EXPECT_EQ(rec["language_source"], "intent");
  EXPECT_EQ(rec["agent"]["name"], "typescript-default");
  EXPECT_EQ(rec["result"]["stdout"], "1063\n");
  EXPECT_EQ(rec["answer"], "Result: 1063");
  EXPECT_EQ(StageStatuses(rec), kAllSucceeded);
  std::string prompt = CodePrompt();
  EXPECT_NE(prompt.find("TypeScript (Node.js 20, run as tsx runs it)"), std::string::npos)
      << prompt;
  EXPECT_NE(prompt.find("/workspace/main.ts"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("```ts"), std::string::npos) << prompt;
}

TEST_F(IntentsTest, BashIntentRunsUnderBash) {
  llm_->Script({AgentReply({{"content", R"({"name":"bash-text","description":"text counting",
      "keywords":["words","count"],"system_prompt":"Write bash one-liners."})"}}),
                CodeReply(Fenced("bash", "printf '%s\\n' $text | wc -l")),
                FormatReply("Result: 3")});
  json rec = Run({{"intent", "a bash one-liner that counts the words in text"},
                  {"inputs", {{"text", "alpha beta gamma"}}}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["language"], "bash");
  EXPECT_EQ(rec["result"]["stdout"], "3\n");
  EXPECT_EQ(rec["answer"], "Result: 3");
}

TEST_F(IntentsTest, ArraysAndObjectsArriveInReadOnlyParamsJson) {
  llm_->Script({AgentReply({{"content", kGenericAgent}}),
                CodeReply(Fenced("python",
                                 "import json\n"
                                 "with open('/workspace/params.json') as f:\n"
                                 "    p = json.load(f)\n"
                                 "try:\n"
                                 "    open('/workspace/params.json', 'w')\n"
                                 "    ro = 'writable'\n"
                                 "except OSError:\n"
                                 "    ro = 'read-only'\n"
                                 "print(sum(numbers), config['width'], p['numbers'] == numbers,\n"
                                 "      p['config'] == config, ro)")),
                FormatReply("Sum 6, width 800")});
  json rec =
      Run({{"intent", "sum the numbers and report the configured width"},
           {"language", "python"},
           {"inputs", {{"numbers", {1, 2, 3}}, {"config", {{"width", 800}, {"height", 600}}}}}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["result"]["stdout"], "6 800 True True read-only\n");
  std::string prompt = CodePrompt();
  EXPECT_NE(prompt.find("numbers: array"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("/workspace/params.json"), std::string::npos) << prompt;
}

// Values built to break out of a string literal in each language; they must
// arrive in the program byte for byte, and never reach the code prompt.
const json kHostileInputs = {{"q1", "it's \"quoted\" \\ back\\slash \\n not-a-newline"},
                             {"q2", "'''\n\"\"\"\n'\"'"},
                             {"q3", "${HOME} $(id) `id` %s {0} #{x}"},
                             {"q4", "line1\nline2\r\n\ttab\x01\x7f"},
                             {"q5", "\xe2\x80\xa8 \xf0\x9f\x98\x80 \xc3\xa9 </script>"}};

struct HostileCase {
  std::string language;
  std::string program;
};

TEST_F(IntentsTest, HostileStringInputsStayDataInEveryLanguage) {
  const HostileCase cases[] = {
      {"python", "import json\nprint(json.dumps([q1, q2, q3, q4, q5]))"},
      {"javascript", "console.log(JSON.stringify([q1, q2, q3, q4, q5]));"},
      {"typescript",
       "const all: string[] = [q1, q2, q3, q4, q5];\nconsole.log(JSON.stringify(all));"},
      // bash has no JSON: each value's bytes, base64-encoded, one per line.
      {"bash",
       "for v in \"$q1\" \"$q2\" \"$q3\" \"$q4\" \"$q5\"; do printf '%s' \"$v\" | "
       "base64 -w0; echo; done"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.language);
    llm_->Script({AgentReply({{"content", kGenericAgent}}),
                  CodeReply(Fenced(c.language, c.program)), FormatReply("done")});
    size_t before = llm_->Requests().size();
    json rec =
        Run({{"intent", "echo the inputs"}, {"language", c.language}, {"inputs", kHostileInputs}});
    ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
    std::string out = rec["result"]["stdout"];
    json expected = json::array();
    for (const char* k : {"q1", "q2", "q3", "q4", "q5"}) expected.push_back(kHostileInputs[k]);
    if (c.language == "bash") {
      std::vector<std::string> lines;
      size_t start = 0;
      for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) {
        lines.push_back(out.substr(start, nl - start));
      }
      ASSERT_EQ(lines.size(), 5u) << out;
      for (size_t i = 0; i < 5; ++i) {
        auto decoded = Base64Decode(lines[i]);
        ASSERT_TRUE(decoded.ok()) << lines[i];
        EXPECT_EQ(*decoded, expected[i].get<std::string>()) << i;
      }
    } else {
      EXPECT_EQ(json::parse(out, nullptr, false), expected) << out;
    }
    std::string prompt = CodePrompt(before);
    ASSERT_FALSE(prompt.empty());
    EXPECT_EQ(prompt.find("$(id)"), std::string::npos) << "an input value reached the code prompt";
  }
}

TEST_F(IntentsTest, ACrashIsSentBackAndTheFixedSecondAttemptWins) {
  llm_->Script({CodeReply(Fenced("python",
                                 "def total(d):\n    return d['missing'] + a\n\nprint(total({}))")),
                FixReply(Fenced("python", "print(a + b)")), FormatReply("Result: 5")});
  json rec = Run({{"intent", "add 2 numbers together"}, {"inputs", {{"a", 2}, {"b", 3}}}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["answer"], "Result: 5");
  ASSERT_EQ(rec["attempts"].size(), 2u);
  EXPECT_EQ(rec["attempts"][0]["result"]["exit_code"], 1);
  EXPECT_EQ(rec["attempts"][0]["error"]["type"], "KeyError");
  EXPECT_EQ(rec["attempts"][0]["error"]["line"], 2) << "the line in the model's code";
  EXPECT_EQ(rec["attempts"][1]["result"]["stdout"], "5\n");
  EXPECT_EQ(StageStatuses(rec), kAllSucceeded);
  // The second prompt carries the traceback and asks for the minimal fix.
  std::string fix = llm_->LastUserMessage(1);
  EXPECT_NE(fix.find("Traceback (most recent call last)"), std::string::npos) << fix;
  EXPECT_NE(fix.find("KeyError"), std::string::npos) << fix;
  EXPECT_NE(fix.find("minimal fix"), std::string::npos) << fix;
  // The conversation keeps the failed program as the model's own turn.
  json second = llm_->Requests()[1]["body"]["messages"];
  ASSERT_GE(second.size(), 4u);
  EXPECT_EQ(second[2]["role"], "assistant");
}

TEST_F(IntentsTest, ThreeFailingAttemptsEndInACleanFailure) {
  std::string bad = Fenced("python", "raise ValueError('nope')");
  llm_->Script({CodeReply(bad), FixReply(bad), FixReply(bad)});
  json rec = Run({{"intent", "add 2 numbers together"}, {"inputs", {{"a", 1}, {"b", 1}}}});
  ASSERT_EQ(rec["status"], "failed") << rec.dump(2);
  EXPECT_EQ(rec["error"]["code"], "attempts_exhausted");
  EXPECT_EQ(rec["error"]["stage"], "execute");
  EXPECT_EQ(rec["error"]["last_error"]["type"], "ValueError");
  EXPECT_NE(rec["error"]["message"].get<std::string>().find("nope"), std::string::npos);
  ASSERT_EQ(rec["attempts"].size(), 3u);
  for (const auto& a : rec["attempts"]) {
    EXPECT_EQ(a["result"]["exit_code"], 1);
    EXPECT_EQ(a["code"], "raise ValueError('nope')\n");
  }
  EXPECT_EQ(rec["result"]["exit_code"], 1) << "the last run is the result";
  EXPECT_EQ(StageStatuses(rec), (Statuses{"succeeded", "succeeded", "failed", "skipped"}));
  EXPECT_TRUE(rec["answer"].is_null());
  EXPECT_EQ(llm_->Requests().size(), 3u) << "no formatting after a failure";
}

struct LlmFailureCase {
  const char* name;
  json reply;
  const char* status;
  const char* code;
};

TEST_F(IntentsTest, ModelFailuresEndAsCleanStageSpecificErrors) {
  const LlmFailureCase cases[] = {
      {"http 500",
       {{"match", "Language: "},
        {"status", 500},
        {"body", R"({"error":{"message":"model overloaded","type":"server_error"}})"}},
       "error",
       "generate_code_http_error"},
      {"garbage",
       {{"match", "Language: "}, {"raw", "<html>not json</html>"}},
       "error",
       "generate_code_bad_reply"},
      {"no code block, prose",
       {{"match", "Language: "}, {"content", "I would add them up."}},
       "failed",
       "attempts_exhausted"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    json script = json::array({c.reply});
    if (std::string(c.code) == "attempts_exhausted") {
      script.push_back(FixReply("I would add them up."));
      script.push_back(FixReply("I would add them up."));
    }
    llm_->Script(script);
    json rec = Run({{"intent", "add 2 numbers together"}, {"inputs", {{"a", 1}, {"b", 1}}}});
    EXPECT_EQ(rec["status"], c.status) << rec.dump(2);
    EXPECT_EQ(rec["error"]["code"], c.code) << rec.dump(2);
    EXPECT_TRUE(rec["answer"].is_null());
  }
  // The service is still fine.
  ExpectNormalJobStillWorks();
}

TEST_F(IntentsTest, ACodeBlockIsNotRequiredWhenTheWholeReplyIsCode) {
  llm_->Script({CodeReply("print(a * b)"), FormatReply("Result: 6")});
  json rec = Run({{"intent", "multiply the numbers"}, {"inputs", {{"a", 2}, {"b", 3}}}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["result"]["stdout"], "6\n");
}

TEST_F(IntentsTest, AFailingFormatterFallsBackToTheRawOutput) {
  llm_->Script({CodeReply(Fenced("python", "print(a + b)")),
                {{"match", "Raw output"}, {"status", 503}, {"body", "busy"}}});
  json rec = Run({{"intent", "add 2 numbers together"}, {"inputs", {{"a", 20}, {"b", 22}}}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["answer"], "42");
  EXPECT_EQ(rec["result"]["stdout"], "42\n");
  EXPECT_EQ(StageStatuses(rec), (Statuses{"succeeded", "succeeded", "succeeded", "failed"}));
}

// One worker, and a model that would think for longer than any test runs.
class IntentsCancelTest : public IntentsTest {
 protected:
  std::string ExtraConfig() const override {
    return IntentsTest::ExtraConfig() + "jobs: {max_concurrent: 1}\n";
  }
  int64_t LlmTimeoutMs() const override { return 600000; }
};

TEST_F(IntentsCancelTest, CancellingWhileTheModelThinksFreesTheWorker) {
  llm_->Script({{{"match", "Language: "}, {"content", "print(1)"}, {"delay_ms", 600000}}});
  std::string id = Submit({{"intent", "add 2 numbers together"}, {"inputs", {{"a", 1}, {"b", 1}}}});
  // The only worker waits on the model.
  ASSERT_TRUE(Eventually([&] { return !llm_->Requests().empty(); }));
  HttpAnswer del = server_->Delete("/v1/jobs/" + id);
  EXPECT_EQ(del.status, 200) << del.body;
  json rec = Wait(id);
  EXPECT_EQ(rec["status"], "cancelled") << rec.dump(2);
  // The next job needs that worker, which the model would hold for ten
  // minutes: it runs only if cancelling freed it.
  ExpectNormalJobStillWorks();
}

TEST_F(IntentsTest, AnUnmatchedIntentGetsANewStoredAgentThatIsReused) {
  const std::string intent = "decode a base32 geohash into latitude and longitude";
  llm_->Script(
      {AgentReply(
           {{"content",
             "```json\n" +
                 json{{"name", "geohash-decoder"},
                      {"description", "decodes geohashes"},
                      {"keywords", {"geohash", "latitude", "longitude"}},
                      {"system_prompt",
                       "You write small Python programs about geohashes. Print only the answer."},
                      {"conventions", {"standard library only"}}}
                     .dump() +
                 "\n```"}}),
       CodeReply(Fenced("python", "print('57.64911,10.40744')")), FormatReply("57.6, 10.4"),
       CodeReply(Fenced("python", "print('57.64911,10.40744')")), FormatReply("57.6, 10.4")});
  json first = Run({{"intent", intent}, {"inputs", {{"geohash", "u4pruydqqvj"}}}});
  ASSERT_EQ(first["status"], "succeeded") << first.dump(2);
  EXPECT_EQ(first["agent"]["name"], "geohash-decoder");
  EXPECT_EQ(first["agent"]["created"], true);
  // The code prompt used the new agent's system prompt.
  json code_request = llm_->Requests()[1]["body"]["messages"][0];
  EXPECT_NE(code_request["content"].get<std::string>().find("geohashes"), std::string::npos);
  HttpAnswer agents = server_->Get("/v1/agents");
  ASSERT_EQ(agents.status, 200) << agents.body;
  bool listed = false;
  for (const auto& a : agents.json["agents"]) listed |= a["name"] == "geohash-decoder";
  EXPECT_TRUE(listed) << agents.body;

  // Durable: after a restart the same intent reuses it without asking.
  server_->Kill9();
  server_ = std::make_unique<ServerProcess>(*server_);
  ASSERT_TRUE(server_->started()) << server_->log();
  size_t before = llm_->Requests().size();
  json second = Run({{"intent", intent}, {"inputs", {{"geohash", "u4pruydqqvj"}}}});
  ASSERT_EQ(second["status"], "succeeded") << second.dump(2);
  EXPECT_EQ(second["agent"]["name"], "geohash-decoder");
  EXPECT_EQ(second["agent"]["created"], false);
  EXPECT_EQ(llm_->Requests().size(), before + 2) << "code + format only";
}

TEST_F(IntentsTest, BadIntentRequestsAreClearJsonErrors) {
  struct Case {
    json body;
    int status;
    const char* code;
  };
  const Case cases[] = {
      {json::object(), 400, "invalid_request"},
      {{{"intent", ""}}, 400, "invalid_request"},
      {{{"intent", 42}}, 400, "invalid_request"},
      {{{"intent", "x"}, {"inputs", {1, 2}}}, 400, "invalid_request"},
      {{{"intent", "x"}, {"language", "cobol"}}, 400, "unknown_language"},
      {{{"intent", "x"}, {"inputs", {{"import", 1}}}}, 400, "invalid_input_name"},
      {{{"intent", "x"}, {"language", "bash"}, {"inputs", {{"PATH", "/tmp"}}}},
       400,
       "invalid_input_name"},
      {{{"intent", "x"}, {"inputs", {{"bad-name", 1}}}}, 400, "invalid_input_name"},
      {{{"intent", "x"}, {"surprise", true}}, 400, "invalid_request"},
      {{{"intent", "x"}, {"limits", {{"timeout_ms", 999999999}}}}, 422, "limit_exceeded"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body.dump());
    HttpAnswer a = server_->Post("/v1/intents", c.body.dump());
    EXPECT_EQ(a.status, c.status) << a.body;
    EXPECT_EQ(a.json["error"]["code"], c.code) << a.body;
  }
  HttpAnswer junk = server_->Post("/v1/intents", "{not json");
  EXPECT_EQ(junk.status, 400);
  EXPECT_EQ(junk.json["error"]["code"], "invalid_json");
  EXPECT_EQ(llm_->Requests().size(), 0u) << "nothing reached the model";
}

class IntentsTimeoutTest : public IntentsTest {
 protected:
  int64_t LlmTimeoutMs() const override { return 1000; }
};

TEST_F(IntentsTimeoutTest, AModelThatDoesNotAnswerInTimeIsAGenerateCodeTimeout) {
  // The model would answer (print(1), a success) only after ten minutes:
  // llm.timeout_ms (1 s) is what ends this.
  llm_->Script({{{"match", "Language: "}, {"content", "print(1)"}, {"delay_ms", 600000}}});
  json rec = Run({{"intent", "add 2 numbers together"}, {"inputs", {{"a", 1}, {"b", 1}}}});
  EXPECT_EQ(rec["status"], "error") << rec.dump(2);
  EXPECT_EQ(rec["error"]["code"], "generate_code_timeout");
  EXPECT_EQ(rec["error"]["stage"], "generate_code");
  EXPECT_EQ(StageStatuses(rec), (Statuses{"succeeded", "failed", "skipped", "skipped"}));
}

// No llm section: Execute mode is off, everything else works.
// Execute mode through MCP (docs/mcp.md): execute_intent is listed when a
// model is configured, reports each of the four stages as progress while
// it runs, and answers with the intent's answer and stages.
TEST_F(IntentsTest, McpExecuteIntentReportsTheFourStagesAsProgress) {
  llm_->Script({CodeReply(Fenced("python", "print(a + b)")), FormatReply("Result: 2")});
  McpClient mcp(server_->port(), "");
  ASSERT_EQ(mcp.Initialize().status, 200);
  McpAnswer tools = mcp.Request("tools/list");
  bool listed = false;
  for (const auto& t : tools.response["result"]["tools"]) listed |= t["name"] == "execute_intent";
  EXPECT_TRUE(listed) << tools.body;
  McpAnswer call = mcp.Request(
      "tools/call",
      {{"name", "execute_intent"},
       {"arguments", {{"intent", "add 2 numbers together"}, {"inputs", {{"a", 1}, {"b", 1}}}}},
       {"_meta", {{"progressToken", "intent-1"}}}});
  ASSERT_EQ(call.status, 200) << call.body;
  const json& result = call.response["result"];
  EXPECT_EQ(result["isError"], false) << call.body;
  EXPECT_EQ(result["content"][0]["text"], "Result: 2") << call.body;
  EXPECT_EQ(result["structuredContent"]["answer"], "Result: 2");
  EXPECT_EQ(result["structuredContent"]["stages"].size(), 4u);
  std::string progress;
  for (const auto& m : call.messages) {
    if (m.value("method", "") != "notifications/progress") continue;
    EXPECT_EQ(m["params"]["progressToken"], "intent-1");
    progress += m["params"].value("message", "") + "\n";
  }
  for (const char* stage : {"discover_agent", "generate_code", "execute", "format_result"}) {
    EXPECT_NE(progress.find(std::string(stage) + ": succeeded"), std::string::npos)
        << stage << " not reported:\n"
        << progress;
  }
  EXPECT_EQ(mcp.Delete().status, 200);
}

class NoLlmTest : public EngineTest {};

TEST_F(NoLlmTest, IntentsAnswer503AndEverythingElseWorks) {
  HttpAnswer a = server_->Post("/v1/intents", R"({"intent":"add 2 numbers together"})");
  EXPECT_EQ(a.status, 503) << a.body;
  EXPECT_EQ(a.json["error"]["code"], "llm_not_configured");
  EXPECT_NE(a.json["error"]["message"].get<std::string>().find("llm.base_url"), std::string::npos);
  HttpAnswer agents = server_->Get("/v1/agents");
  EXPECT_EQ(agents.status, 200);
  EXPECT_EQ(agents.json["agents"], json::array());
  // MCP offers no execute_intent without a model.
  McpClient mcp(server_->port(), "");
  ASSERT_EQ(mcp.Initialize().status, 200);
  McpAnswer tools = mcp.Request("tools/list");
  ASSERT_TRUE(tools.response["result"]["tools"].is_array()) << tools.body;
  for (const auto& t : tools.response["result"]["tools"]) EXPECT_NE(t["name"], "execute_intent");
  ExpectNormalJobStillWorks();
}

}  // namespace
}  // namespace coderunner::testing

namespace coderunner::testing {
namespace {

TEST_F(IntentsTest, AnIntentInterruptedByACrashRunsAgainAfterRestart) {
  // The first code request is still waiting on the model when the service
  // dies; after the restart the intent starts over and completes.
  llm_->Script({{{"match", "Language: "}, {"content", "print(0)"}, {"delay_ms", 30000}},
                CodeReply(Fenced("python", "print(a + b)")),
                FormatReply("Result: 2")});
  std::string id = Submit({{"intent", "add 2 numbers together"}, {"inputs", {{"a", 1}, {"b", 1}}}});
  ASSERT_TRUE(Eventually([&] { return !llm_->Requests().empty(); }));
  ASSERT_EQ(llm_->Requests().size(), 1u);
  server_->Kill9();
  server_ = std::make_unique<ServerProcess>(*server_);
  ASSERT_TRUE(server_->started()) << server_->log();
  json rec = Wait(id);
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["answer"], "Result: 2");
  EXPECT_EQ(rec["attempt"], 2) << "the crash-recovery re-run";
  ASSERT_EQ(rec["attempts"].size(), 1u) << "progress starts over with the re-run";
}

constexpr const char* kAcmeKey = "acme-intents-key-0123456789";      // tier pro
constexpr const char* kGlobexKey = "globex-intents-key-0123456789";  // tier free

class IntentsTenantsTest : public IntentsTest {
 protected:
  std::string ExtraConfig() const override {
    return IntentsTest::ExtraConfig() +
           ApiKeysYaml({{"acme", "pro", kAcmeKey}, {"globex", "free", kGlobexKey}});
  }
};

TEST_F(IntentsTenantsTest, IntentsAndCreatedAgentsBelongToTheirTenantAndTier) {
  llm_->Script({AgentReply({{"content", kGenericAgent}}), CodeReply(Fenced("python", "print(1)")),
                FormatReply("1")});
  json body = {{"intent", "echo the inputs"}, {"inputs", {{"x", 1}}}};
  EXPECT_EQ(server_->Call("POST", "/v1/intents", "", body.dump()).status, 401);
  HttpAnswer accepted = server_->Call("POST", "/v1/intents", kAcmeKey, body.dump());
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  std::string id = accepted.json["id"];
  HttpAnswer done = server_->Call("GET", "/v1/jobs/" + id + "/wait?timeout_s=60", kAcmeKey);
  ASSERT_EQ(done.json["status"], "succeeded") << done.body;
  EXPECT_EQ(done.json["agent"]["name"], "generic");
  // Another tenant sees neither the intent nor the agent it created.
  EXPECT_EQ(server_->Call("GET", "/v1/jobs/" + id, kGlobexKey).status, 404);
  HttpAnswer theirs = server_->Call("GET", "/v1/agents", kGlobexKey);
  for (const auto& a : theirs.json["agents"]) EXPECT_NE(a["name"], "generic");
  HttpAnswer mine = server_->Call("GET", "/v1/agents", kAcmeKey);
  bool listed = false;
  for (const auto& a : mine.json["agents"]) listed |= a["name"] == "generic";
  EXPECT_TRUE(listed) << mine.body;
  // The free tier bounds an intent's runs and has no volumes.
  json too_long = {{"intent", "x"}, {"limits", {{"timeout_ms", 60000}}}};
  HttpAnswer limited = server_->Call("POST", "/v1/intents", kGlobexKey, too_long.dump());
  EXPECT_EQ(limited.status, 422) << limited.body;
  EXPECT_EQ(limited.json["error"]["code"], "limit_exceeded");
  json with_volume = {{"intent", "x"}, {"volume_id", "vol-0123456789abcdef01234567"}};
  HttpAnswer forbidden = server_->Call("POST", "/v1/intents", kGlobexKey, with_volume.dump());
  EXPECT_EQ(forbidden.status, 403) << forbidden.body;
}

}  // namespace
}  // namespace coderunner::testing
