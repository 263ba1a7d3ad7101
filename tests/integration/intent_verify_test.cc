// Execute mode's verify step end to end (docs/execute-mode.md): the
// scripted model writes a program and checks for it, the checks run with
// the program in its container, and a failed check is a retry. A real
// service, a real engine, tests/fake_llm standing in for the model.
#include <errno.h>

#include <string>
#include <vector>

#include "llm_engine_test.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr const char* kGenericAgent =
    R"({"name":"generic","description":"anything","keywords":["numbers","list","largest","sum"],)"
    R"("system_prompt":"Write the smallest program that does the task."})";

std::string Fenced(const std::string& code) { return "```python\n" + code + "\n```\n"; }

// Python checks printing one CHECK line per check (verify_checks.h).
constexpr const char* kCheckHelper =
    "# checks\n"
    "import ast\n"
    "out = open('/tmp/program_stdout.txt').read().strip()\n"
    "def check(kind, name, ok, detail=''):\n"
    "    print(f\"CHECK {'PASS' if ok else 'FAIL'} {kind} {name}\" + ('' if ok else f' | "
    "{detail}'))\n";

json ChecksReply(const std::string& body) {
  return {{"match", "Write checks that would catch"},
          {"content", Fenced(std::string(kCheckHelper) + body)}};
}
json AfterChecksReply(const std::string& content) {
  return {{"match", "of its checks failed"}, {"content", content}};
}

class IntentVerifyTest : public LlmEngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "llm: {base_url: \"" + llm_->base_url() + "\", model: fake-model, timeout_ms: 10000}\n";
  }

  json Run(json body) {
    HttpAnswer a = server_->Post("/v1/intents", body.dump());
    EXPECT_EQ(a.status, 202) << a.body;
    std::string id = a.json.is_object() ? a.json.value("id", "") : "";
    HttpAnswer done = server_->Get("/v1/jobs/" + id + "/wait?timeout_s=120");
    EXPECT_EQ(done.status, 200) << done.body;
    return done.json;
  }

  // The user message of the first request to the model holding `marker`.
  std::string PromptWith(const std::string& marker) const {
    for (size_t i = 0; i < llm_->Requests().size(); ++i) {
      std::string m = llm_->LastUserMessage(i);
      if (m.find(marker) != std::string::npos) return m;
    }
    return "";
  }
};

// The top three, the largest first: a plausible first program gets the
// order wrong.
const json kTopThree = {{"intent", "print the 3 largest numbers of xs, the largest first"},
                        {"language", "python"},
                        {"inputs", {{"xs", {5, 1, 9, 3, 7}}}},
                        {"verify", "checks"}};
constexpr const char* kTopThreeChecks =
    "got = ast.literal_eval(out)\n"
    "check('property', 'three values', len(got) == 3, f'got {len(got)}')\n"
    "check('property', 'the largest first', got == sorted(got, reverse=True), f'got {got}')\n"
    "check('example', 'top 3 of [5, 1, 9, 3, 7] is [9, 7, 5]', got == [9, 7, 5], f'got {got}')\n";

TEST_F(IntentVerifyTest, AWrongAnswerIsCaughtByACheckRetriedAndFixed) {
  llm_->Script({AgentReply({{"content", kGenericAgent}}),
                CodeReply(Fenced("print(sorted(xs)[-3:])")),  // Exit 0, wrong order.
                ChecksReply(kTopThreeChecks),
                AfterChecksReply(Fenced("print(sorted(xs, reverse=True)[:3])")),
                FormatReply("The three largest: 9, 7, 5")});
  json rec = Run(kTopThree);
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  // Only the program's own stdout is its result: the checks' lines are not.
  EXPECT_EQ(rec["result"]["stdout"], "[9, 7, 5]\n");
  ASSERT_EQ(rec["attempts"].size(), 2u) << rec.dump(2);
  const json& first = rec["attempts"][0];
  EXPECT_EQ(first["result"]["stdout"], "[5, 7, 9]\n");
  EXPECT_EQ(first["error"]["type"], "CheckFailed");
  ASSERT_EQ(first["checks"].size(), 3u) << first.dump(2);
  EXPECT_EQ(first["checks"][0]["passed"], true);
  EXPECT_EQ(first["checks"][1]["passed"], false);
  EXPECT_EQ(first["checks"][1]["detail"], "got [5, 7, 9]");
  EXPECT_EQ(rec["attempts"][1]["error"], nullptr);
  const json& v = rec["verification"];
  EXPECT_EQ(v["mode"], "checks");
  EXPECT_EQ(v["verified"], true);
  EXPECT_EQ(v["summary"], "1 example and 2 properties passed");
  EXPECT_EQ(v["checks"].size(), 3u);
  EXPECT_EQ(rec["answer"],
            "The three largest: 9, 7, 5\nVerified: 1 example and 2 properties passed.");
  // The execute stage carries the step, as /events sends it.
  EXPECT_EQ(rec["stages"][2]["verify"]["verified"], true) << rec["stages"][2].dump();
  // The checks were written from the program's code, never its output;
  // the retry named the failing check.
  std::string checks_prompt = PromptWith("Write checks that would catch");
  EXPECT_NE(checks_prompt.find("print(sorted(xs)[-3:])"), std::string::npos) << checks_prompt;
  EXPECT_EQ(checks_prompt.find("[5, 7, 9]"), std::string::npos) << checks_prompt;
  std::string retry = PromptWith("of its checks failed");
  EXPECT_NE(retry.find("property the largest first: got [5, 7, 9]"), std::string::npos) << retry;
}

TEST_F(IntentVerifyTest, AWrongCheckIsReportedAndCorrectedNotObeyed) {
  // The program is right; one expected value of the checks is not. The
  // model says so, with why, and corrects the check: the program stays,
  // and the record and the answer name the correction.
  const std::string wrong =
      "check('example', 'sum of [1, 2, 3, 4]', int(out) == 11, f'got {out}')\n";
  const std::string right =
      "check('example', 'sum of [1, 2, 3, 4]', int(out) == 10, f'got {out}')\n";
  llm_->Script({AgentReply({{"content", kGenericAgent}}), CodeReply(Fenced("print(sum(xs))")),
                ChecksReply(wrong),
                AfterChecksReply("Wrong check: 1 + 2 + 3 + 4 is 10, not 11\n\n" +
                                 Fenced(std::string(kCheckHelper) + right)),
                FormatReply("The sum is 10")});
  json rec = Run({{"intent", "sum the numbers xs"},
                  {"language", "python"},
                  {"inputs", {{"xs", {1, 2, 3, 4}}}},
                  {"verify", "checks"}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  ASSERT_EQ(rec["attempts"].size(), 2u);
  EXPECT_EQ(rec["attempts"][0]["checks"][0]["passed"], false);
  EXPECT_EQ(rec["attempts"][1]["code"], "print(sum(xs))\n");  // Not bent to the check.
  EXPECT_EQ(rec["attempts"][1]["checks_code"], std::string(kCheckHelper) + right);
  const json& v = rec["verification"];
  EXPECT_EQ(v["verified"], true);
  ASSERT_EQ(v["revisions"].size(), 1u);
  EXPECT_EQ(v["revisions"][0]["attempt"], 2);
  EXPECT_EQ(v["revisions"][0]["reason"], "1 + 2 + 3 + 4 is 10, not 11");
  EXPECT_EQ(rec["answer"],
            "The sum is 10\nVerified: 1 example passed (the model corrected its checks 1 time: "
            "1 + 2 + 3 + 4 is 10, not 11).");
}

TEST_F(IntentVerifyTest, ChecksThatNeverAgreeEndUnverifiedWithinTheBudget) {
  // The same wrong program three times: the intent ends unverified after
  // its three attempts, with the failed checks, and no answer. The second
  // and third runs of the unchanged program and checks come from the
  // cache: no container.
  llm_->Script({AgentReply({{"content", kGenericAgent}}),
                CodeReply(Fenced("print(sorted(xs)[-3:])")), ChecksReply(kTopThreeChecks),
                AfterChecksReply(Fenced("print(sorted(xs)[-3:])")),
                AfterChecksReply(Fenced("print(sorted(xs)[-3:])"))});
  json rec = Run(kTopThree);
  ASSERT_EQ(rec["status"], "failed") << rec.dump(2);
  EXPECT_EQ(rec["error"]["code"], "unverified");
  EXPECT_EQ(rec["error"]["stage"], "execute");
  EXPECT_EQ(rec["error"]["budget"], "attempts_exhausted");
  ASSERT_EQ(rec["error"]["failed_checks"].size(), 2u) << rec["error"].dump();
  EXPECT_EQ(rec["error"]["failed_checks"][0]["name"], "the largest first");
  EXPECT_EQ(rec["answer"], nullptr);
  EXPECT_EQ(rec["verification"]["verified"], false);
  EXPECT_EQ(rec["verification"]["summary"], "2 of 3 checks failed");
  ASSERT_EQ(rec["attempts"].size(), 3u);
  EXPECT_EQ(rec["attempts"][0]["checks_cached"], false);
  EXPECT_EQ(rec["attempts"][1]["checks_cached"], true);
  EXPECT_EQ(rec["attempts"][2]["checks_cached"], true);
}

TEST_F(IntentVerifyTest, FullModeAsksWhetherTheOutputAnswersTheQuestionAsked) {
  // Checks that pass, and an output that answers another question: the
  // judge says so, the model fixes the program, the judge agrees.
  const std::string checks =
      "check('property', 'numbers only', all(w.isdigit() for w in out.split()))\n";
  llm_->Script({AgentReply({{"content", kGenericAgent}}),
                CodeReply(Fenced("print(*sorted(xs, reverse=True))")),
                ChecksReply(checks),
                {{"match", "answers the task as asked"},
                 {"content",
                  R"({"answers": false, "problem": "prints all 5 numbers; the task asks for 2"})"}},
                {{"match", "does not answer the task as asked"},
                 {"content", Fenced("print(*sorted(xs, reverse=True)[:2])")}},
                {{"match", "answers the task as asked"}, {"content", R"({"answers": true})"}},
                FormatReply("9 7")});
  json rec = Run({{"intent", "print the 2 largest numbers of xs"},
                  {"language", "python"},
                  {"inputs", {{"xs", {5, 1, 9, 3, 7}}}},
                  {"verify", "full"}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["result"]["stdout"], "9 7\n");
  ASSERT_EQ(rec["attempts"].size(), 2u);
  const json& judged = rec["attempts"][0]["checks"].back();
  EXPECT_EQ(judged["kind"], "judge");
  EXPECT_EQ(judged["passed"], false);
  EXPECT_EQ(judged["detail"], "prints all 5 numbers; the task asks for 2");
  EXPECT_EQ(rec["verification"]["mode"], "full");
  EXPECT_EQ(rec["verification"]["verified"], true);
  EXPECT_EQ(rec["answer"],
            "9 7\nVerified: 1 property passed; the model judged that the output answers the "
            "question as asked.");
}

TEST_F(IntentVerifyTest, TheModeIsOffChecksOrFull) {
  HttpAnswer a =
      server_->Post("/v1/intents", json{{"intent", "sum xs"}, {"verify", "always"}}.dump());
  EXPECT_EQ(a.status, 400) << a.body;
  EXPECT_EQ(a.json["error"]["code"], "invalid_request") << a.body;
  EXPECT_NE(a.body.find("verify: must be one of off, checks, full"), std::string::npos) << a.body;
  // Off (the default): no checks are asked for and the record says null.
  llm_->Script({AgentReply({{"content", kGenericAgent}}), CodeReply(Fenced("print(sum(xs))")),
                FormatReply("6")});
  json rec = Run(
      {{"intent", "sum the numbers xs"}, {"language", "python"}, {"inputs", {{"xs", {1, 2, 3}}}}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  EXPECT_EQ(rec["verification"], nullptr);
  EXPECT_EQ(rec["answer"], "6");
  EXPECT_EQ(PromptWith("Write checks that would catch"), "");
}

// Checks are a job's code like any other: the cache is off here, so every
// check below runs in the container, and each reports what the sandbox did
// to it.
class IntentVerifyContainmentTest : public IntentVerifyTest {
 protected:
  std::string ExtraConfig() const override {
    return IntentVerifyTest::ExtraConfig() + "jobs: {cache_ttl_s: 0}\n";
  }
};

TEST_F(IntentVerifyContainmentTest, HostileChecksAreContainedLikeAnyJob) {
  // The checks try the network, fork without end and fill /tmp; each
  // reports the errno or the count it got, and passes so the intent ends.
  const std::string hostile =
      "import errno, os, socket\n"
      "try:\n"
      "    socket.create_connection(('1.1.1.1', 53), timeout=3)\n"
      "    net = 'connected'\n"
      "except OSError as e:\n"
      "    net = errno.errorcode.get(e.errno, str(e.errno))\n"
      "check('property', 'network', True, '')\n"
      "print(f'CHECK PASS property network-errno | {net}')\n"
      "kids = 0\n"
      "try:\n"
      "    while kids < 10000:\n"
      "        if os.fork() == 0:\n"
      "            import time; time.sleep(30); os._exit(0)\n"
      "        kids += 1\n"
      "except OSError as e:\n"
      "    pass\n"
      "print(f'CHECK PASS property forks | {kids}')\n"
      "written = 0\n"
      "try:\n"
      "    with open('/tmp/fill', 'wb') as f:\n"
      "        while written < (1 << 30):\n"
      "            f.write(b'x' * (1 << 20)); f.flush(); written += 1 << 20\n"
      "except OSError as e:\n"
      "    pass\n"
      "print(f'CHECK PASS property tmp-bytes | {written}')\n"
      "os.remove('/tmp/fill')\n";
  llm_->Script({AgentReply({{"content", kGenericAgent}}), CodeReply(Fenced("print(sum(xs))")),
                ChecksReply(hostile), FormatReply("6")});
  json rec = Run({{"intent", "sum the numbers xs"},
                  {"language", "python"},
                  {"inputs", {{"xs", {1, 2, 3}}}},
                  {"verify", "checks"},
                  {"limits", {{"timeout_ms", 20000}}}});
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump(2);
  ASSERT_EQ(rec["attempts"].size(), 1u);
  const json& checks = rec["attempts"][0]["checks"];
  ASSERT_EQ(checks.size(), 4u) << checks.dump(2);
  EXPECT_EQ(rec["attempts"][0]["checks_cached"], false);
  // No interface but loopback: no route anywhere.
  EXPECT_EQ(checks[1]["detail"], "ENETUNREACH") << checks.dump();
  // The pids limit (limits.pids, 64 by default) stops the forks.
  int forks = std::stoi(checks[2]["detail"].get<std::string>());
  EXPECT_LT(forks, 64) << checks.dump();
  EXPECT_GT(forks, 0) << checks.dump();
  // /tmp is a tmpfs of limits.tmp_bytes (64 MiB by default).
  int64_t written = std::stoll(checks[3]["detail"].get<std::string>());
  EXPECT_LE(written, 64LL << 20) << checks.dump();
  EXPECT_EQ(rec["result"]["stdout"], "6\n");
}

}  // namespace
}  // namespace coderunner::testing
