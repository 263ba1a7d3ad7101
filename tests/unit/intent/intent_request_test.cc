#include "coderunner/intent/intent_request.h"

#include <gtest/gtest.h>

#include <string>

namespace coderunner::intent {
namespace {

using nlohmann::json;

struct ParseCase {
  const char* name;
  json body;
  std::string reason;    // "" = accepted.
  std::string language;  // Expected resolved language when accepted.
  std::string language_source;
};

TEST(ParseIntentRequestTest, ValidatesAndResolvesTheLanguage) {
  const ParseCase cases[] = {
      {"seed example",
       {{"intent", "add 2 numbers together"}, {"inputs", {{"a", 1}, {"b", 1}}}},
       "",
       "python",
       "default"},
      {"named in the intent",
       {{"intent", "write a JavaScript function that reverses s"}},
       "",
       "javascript",
       "intent"},
      {"bash one-liner", {{"intent", "a bash one-liner that counts lines"}}, "", "bash", "intent"},
      {"typescript named in the intent",
       {{"intent", "sum the primes below 100 in TypeScript"}},
       "",
       "typescript",
       "intent"},
      {"typescript by its alias",
       {{"intent", "x"}, {"language", "ts"}},
       "",
       "typescript",
       "request"},
      {"given wins over the intent",
       {{"intent", "a bash one-liner"}, {"language", "python"}},
       "",
       "python",
       "request"},
      {"no intent", json::object(), "invalid_request", "", ""},
      {"empty intent", {{"intent", " \n"}}, "invalid_request", "", ""},
      {"intent not a string", {{"intent", 1}}, "invalid_request", "", ""},
      {"inputs an array", {{"intent", "x"}, {"inputs", {1}}}, "invalid_request", "", ""},
      {"unknown field", {{"intent", "x"}, {"code", "print(1)"}}, "invalid_request", "", ""},
      {"stored-only field",
       {{"intent", "x"}, {"language_source", "intent"}},
       "",
       "python",
       "default"},
      {"unsupported language",
       {{"intent", "x"}, {"language", "cobol"}},
       "unknown_language",
       "",
       ""},
      {"bad input name", {{"intent", "x"}, {"inputs", {{"a-b", 1}}}}, "invalid_input_name", "", ""},
      {"limits above the maximum",
       {{"intent", "x"}, {"limits", {{"timeout_ms", 1LL << 40}}}},
       "limit_exceeded",
       "",
       ""},
      {"limits not an object", {{"intent", "x"}, {"limits", 5}}, "invalid_request", "", ""},
      {"bad callback",
       {{"intent", "x"}, {"callback_url", "ftp://x"}},
       "invalid_callback_url",
       "",
       ""},
      {"verify checks", {{"intent", "x"}, {"verify", "checks"}}, "", "python", "default"},
      {"verify not a mode", {{"intent", "x"}, {"verify", "on"}}, "invalid_request", "", ""},
      {"verify not a string", {{"intent", "x"}, {"verify", true}}, "invalid_request", "", ""},
  };
  config::Config config = config::DefaultConfig();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = ParseIntentRequest(c.body.dump(), config, nullptr);
    if (c.reason.empty()) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->language, c.language);
      EXPECT_EQ(r->language_source, c.language_source);
    } else {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().reason(), c.reason) << r.status().ToString();
    }
  }
}

TEST(ParseIntentRequestTest, MalformedJsonIsInvalidJsonAndTooDeepJsonTooDeep) {
  config::Config config = config::DefaultConfig();
  EXPECT_EQ(ParseIntentRequest("{nope", config, nullptr).status().reason(), "invalid_json");
  // Found by the fuzzer: a body that is JSON but not an object.
  for (const char* body : {"3", "[]", "\"x\"", "null"}) {
    EXPECT_EQ(ParseIntentRequest(body, config, nullptr).status().reason(), "invalid_request")
        << body;
  }
  std::string deep =
      R"({"intent":"x","inputs":{"a":)" + std::string(200, '[') + std::string(200, ']') + "}}";
  EXPECT_EQ(ParseIntentRequest(deep, config, nullptr).status().reason(), "json_too_deep");
}

TEST(ParseIntentRequestTest, IntentLongerThanTheCapIsRefused) {
  config::Config config = config::DefaultConfig();
  config.intents.max_intent_bytes = 10;
  auto r = ParseIntentRequest(json{{"intent", std::string(11, 'x')}}.dump(), config, nullptr);
  EXPECT_EQ(r.status().reason(), "invalid_request");
}

TEST(ParseIntentRequestTest, TierBoundsTheLimits) {
  config::Config config = config::DefaultConfig();
  const config::TierConfig* free = config.FindTier("free");
  ASSERT_NE(free, nullptr);
  auto r = ParseIntentRequest(
      json{{"intent", "x"}, {"limits", {{"timeout_ms", free->max_timeout_ms + 1}}}}.dump(), config,
      free);
  EXPECT_EQ(r.status().reason(), "limit_exceeded");
}

TEST(IntentRequestJsonTest, StoredFormRoundTripsKeepingTheLanguageSource) {
  config::Config config = config::DefaultConfig();
  auto r = ParseIntentRequest(json{{"intent", "a bash one-liner"},
                                   {"inputs", {{"n", 3}}},
                                   {"volume_id", "vol-1"},
                                   {"verify", "full"}}
                                  .dump(),
                              config, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto back = IntentRequestFromJson(IntentRequestToJson(*r), config);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->intent, r->intent);
  EXPECT_EQ(back->inputs, r->inputs);
  EXPECT_EQ(back->language, "bash");
  EXPECT_EQ(back->language_source, "intent");
  EXPECT_EQ(back->volume_id, "vol-1");
  EXPECT_EQ(back->verify, "full");  // A stored intent keeps its verify step.
}

TEST(AttemptBodyTest, CarriesProgramInputsVolumeAndLimits) {
  IntentRequest r;
  r.language = "python";
  r.inputs = {{"a", 1}};
  r.volume_id = "vol-9";
  r.limits = {{"memory_bytes", 1 << 26}};
  json body = AttemptBody(r, "x = 1\nprint(x)\n");
  EXPECT_EQ(body["language"], "python");
  EXPECT_EQ(body["code"], "x = 1\nprint(x)\n");
  EXPECT_EQ(body["inputs"], r.inputs);
  EXPECT_EQ(body["volume_id"], "vol-9");
  EXPECT_EQ(body["limits"]["memory_bytes"], 1 << 26);
  IntentRequest bare;
  bare.language = "bash";
  json b = AttemptBody(bare, "echo");
  EXPECT_FALSE(b.contains("inputs"));
  EXPECT_FALSE(b.contains("limits"));
  EXPECT_FALSE(b.contains("volume_id"));
}

TEST(AttemptRequestTest, IsTheTypedAttemptBodyBoundedAsAnExecuteBody) {
  IntentRequest r;
  r.language = "python";
  r.inputs = {{"a", 1}};
  r.volume_id = "vol-9";
  r.limits = {{"memory_bytes", 1 << 26}, {"cpus", 0.5}};
  auto req = AttemptRequest(r, "print(1)\n", wire::RequestCaps{});
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_EQ(req->language, "python");
  EXPECT_EQ(req->code, "print(1)\n");
  EXPECT_EQ(req->inputs_json, R"({"a":1})");
  EXPECT_EQ(req->volume_id, "vol-9");
  EXPECT_EQ(req->limits.memory_bytes, 1 << 26);
  EXPECT_EQ(req->limits.cpus, 0.5);

  struct Case {
    const char* name;
    json inputs;
    json limits;
    std::string reason;  // "" = accepted.
  };
  const Case kCases[] = {
      {"bare", nullptr, json::object(), ""},
      {"limit of the wrong type", nullptr, {{"timeout_ms", "5s"}}, "invalid_request"},
      {"unknown limit", nullptr, {{"disk", 1}}, "invalid_request"},
      {"inputs over the cap", {{"s", std::string(200, 'x')}}, json::object(), "invalid_request"},
  };
  wire::RequestCaps caps;
  caps.max_inputs_bytes = 100;
  for (const auto& c : kCases) {
    IntentRequest q;
    q.language = "bash";
    q.inputs = c.inputs;
    q.limits = c.limits;
    auto got = AttemptRequest(q, "echo", caps);
    EXPECT_EQ(got.ok() ? "" : got.status().reason(), c.reason) << c.name;
  }
}

}  // namespace
}  // namespace coderunner::intent
