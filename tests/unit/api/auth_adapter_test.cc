#include "api/auth_adapter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/http_status.h"
#include "coderunner/common/sha256.h"
#include "unit/api/counting_authenticator.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

constexpr const char kKey[] = "Bearer acme-secret-key";

// An adapter over a config with one key (tenant acme, tier pro) whose tier
// allows `per_minute` requests and `long_requests` long-held ones.
class AuthAdapterTest : public ::testing::Test {
 protected:
  void Configure(int per_minute, int long_requests) {
    config_ = config::DefaultConfig();
    config_.auth.mode = "api_keys";
    config_.auth.keys = {{"acme", "pro", Sha256Hex("acme-secret-key")}};
    for (auto& t : config_.tiers) {
      t.requests_per_minute = per_minute;
      t.max_long_requests = long_requests;
    }
  }

  AuthAdapter Adapter() {
    return AuthAdapter(AuthDeps{&authenticator_, &limiter_, &long_requests_, &config_, &metrics_});
  }

  // Runs `handler` for a GET with `authorization` ("" for none), and
  // what RouteTable's admission found (nothing for a GET by default).
  httplib::Response Call(const AdmittedHandler& handler, const std::string& authorization,
                         const Admission& admission = {}) {
    httplib::Request req;
    req.method = "GET";
    req.path = "/v1/test";
    if (!authorization.empty()) req.set_header("Authorization", authorization);
    httplib::Response res;
    handler(req, res, json(), admission);
    return res;
  }

  static std::vector<std::string> Headers(const httplib::Response& res, const char* name) {
    std::vector<std::string> out;
    auto [begin, end] = res.headers.equal_range(name);
    for (auto it = begin; it != end; ++it) out.push_back(it->second);
    return out;
  }

  config::Config config_;
  testutil::CountingAuthenticator authenticator_{config_};
  auth::LocalRateLimiter limiter_;
  MetricsRegistry metrics_;
  auth::LongRequestLimiter long_requests_;
  int calls_ = 0;
};

TEST_F(AuthAdapterTest, RefusedCallersNeverReachTheHandler) {
  Configure(/*per_minute=*/1, /*long_requests=*/1);
  auto handler = Adapter().Wrap([this](const auth::Principal&, const httplib::Request&) {
    ++calls_;
    return StatusOr<Answer>(Answer::Json(200, {{"ok", true}}));
  });
  struct Case {
    const char* name;
    const char* authorization;
    int status;
    const char* code;  // nullptr: the handler answered.
    const char* header;
    std::vector<std::string> values;  // "*": any value.
  };
  // One token a minute: the first call with the key spends it.
  const Case cases[] = {
      {"no key", "", 401, "unauthenticated", "WWW-Authenticate", {"Bearer"}},
      {"unknown key", "Bearer nope", 401, "unauthenticated", "WWW-Authenticate", {"Bearer"}},
      {"within the rate", kKey, 200, nullptr, "Retry-After", {}},
      // ReplyError's 1 s, then the limiter's own figure (as before routes
      // were wrapped once).
      {"over the rate", kKey, 429, "rate_limited", "Retry-After", {"1", "*"}},
  };
  int want_calls = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    httplib::Response res = Call(handler, c.authorization);
    EXPECT_EQ(res.status, c.status);
    json body = json::parse(res.body);
    if (c.code == nullptr) {
      ++want_calls;
      EXPECT_EQ(body, json({{"ok", true}}));
    } else {
      EXPECT_EQ(body["error"]["code"], c.code);
      EXPECT_TRUE(body["error"]["message"].is_string());
    }
    EXPECT_EQ(calls_, want_calls);
    std::vector<std::string> values = Headers(res, c.header);
    ASSERT_EQ(values.size(), c.values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if (c.values[i] != "*") {
        EXPECT_EQ(values[i], c.values[i]);
      }
    }
  }
}

TEST_F(AuthAdapterTest, HandlerStatusBecomesItsCodeAndEnvelope) {
  Configure(/*per_minute=*/0, /*long_requests=*/1);
  struct Case {
    Status status;
    int http;
    std::vector<std::string> retry_after;
  };
  const Case cases[] = {
      {InvalidArgumentError("bad", "invalid_request"), 400, {}},
      {NotFoundError("no such job", "job_not_found"), 404, {}},
      {FailedPreconditionError("no volumes", "forbidden"), 403, {}},
      {FailedPreconditionError("busy", "volume_in_use"), 409, {}},
      {FailedPreconditionError("over", "limit_exceeded"), 422, {}},
      {ResourceExhaustedError("full", "queue_full"), 429, {"1"}},
      {ResourceExhaustedError("held", auth::kTooManyLongRequests), 429, {"2"}},
      {UnavailableError("down", "engine_unavailable"), 503, {}},
      {InternalError("oops", "internal"), 500, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.status.ToString());
    auto handler =
        Adapter().Wrap([&c](const auth::Principal&, const httplib::Request&) -> StatusOr<Answer> {
          return c.status;
        });
    httplib::Response res = Call(handler, kKey);
    EXPECT_EQ(res.status, c.http);
    EXPECT_EQ(res.body, ErrorJson(c.status).dump());
    EXPECT_EQ(res.get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(Headers(res, "Retry-After"), c.retry_after);
  }
}

TEST_F(AuthAdapterTest, AnswersCarryStatusBodyAndHeaders) {
  Configure(/*per_minute=*/0, /*long_requests=*/1);
  struct Case {
    const char* name;
    Answer answer;
    int status;
    std::string body;
    std::string content_type;
    std::vector<std::string> cache_control;
  };
  const Case cases[] = {
      {"json", Answer::Json(201, {{"id", "x"}}), 201, R"({"id":"x"})", "application/json", {}},
      {"json with a header",
       Answer::Json(202, {{"a", 1}}).WithHeader("Cache-Control", "no-cache"),
       202,
       R"({"a":1})",
       "application/json",
       {"no-cache"}},
      {"raw json text",
       Answer::Text(200, R"({"raw":true})"),
       200,
       R"({"raw":true})",
       "application/json",
       {}},
      {"other text",
       Answer::Text(200, "m 1\n", "text/plain; version=0.0.4"),
       200,
       "m 1\n",
       "text/plain; version=0.0.4",
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto handler =
        Adapter().Wrap([&c](const auth::Principal& p, const httplib::Request&) -> StatusOr<Answer> {
          EXPECT_EQ(p.tenant, "acme");
          return c.answer;
        });
    httplib::Response res = Call(handler, kKey);
    EXPECT_EQ(res.status, c.status);
    EXPECT_EQ(res.body, c.body);
    EXPECT_EQ(res.get_header_value("Content-Type"), c.content_type);
    EXPECT_EQ(Headers(res, "Cache-Control"), c.cache_control);
  }
}

TEST_F(AuthAdapterTest, LongRequestSlotIsHeldWhileTheLeaseLivesAndRefusedBeyond) {
  Configure(/*per_minute=*/0, /*long_requests=*/1);
  AuthAdapter adapter = Adapter();
  auth::Principal acme{"acme", config_.FindTier("pro")};
  auto first = adapter.HoldLongRequest(acme);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(long_requests_.held("acme"), 1);
  // A handler that takes a slot returns its Status: 429 before waiting.
  auto handler = adapter.Wrap(
      [&adapter](const auth::Principal& p, const httplib::Request&) -> StatusOr<Answer> {
        CR_ASSIGN_OR_RETURN(auto slot, adapter.HoldLongRequest(p));
        ADD_FAILURE() << "the handler went on without a slot";
        return Answer::Json(200, nullptr);
      });
  httplib::Response res = Call(handler, kKey);
  EXPECT_EQ(res.status, 429);
  EXPECT_EQ(json::parse(res.body)["error"]["code"], auth::kTooManyLongRequests);
  EXPECT_EQ(Headers(res, "Retry-After"), std::vector<std::string>{"2"});
  first->reset();
  EXPECT_EQ(long_requests_.held("acme"), 0);
  EXPECT_TRUE(adapter.HoldLongRequest(acme).ok());
}

void TestShape(httplib::Response& res, const Status& status) {
  res.status = 418;
  res.set_content(json{{"message", status.message()}}.dump(), "application/json");
}

TEST_F(AuthAdapterTest, ErrorWriterShapesEveryErrorOfItsRoutes) {
  Configure(/*per_minute=*/0, /*long_requests=*/1);
  auto handler = Adapter().WithErrors(TestShape).Wrap(
      [](const auth::Principal&, const httplib::Request&) -> StatusOr<Answer> {
        return NotFoundError("gone", "x_not_found");
      });
  for (const char* authorization : {"", kKey}) {
    SCOPED_TRACE(authorization);
    httplib::Response res = Call(handler, authorization);
    EXPECT_EQ(res.status, 418);
    EXPECT_TRUE(json::parse(res.body).contains("message"));
  }
}

// The caller RouteTable's admission found is authorized as is: its key is
// not checked a second time (nor needed again), while the tier's request
// rate still applies to it once per request.
TEST_F(AuthAdapterTest, AnAdmittedCallerIsNotAuthenticatedAgain) {
  Configure(/*per_minute=*/2, /*long_requests=*/1);
  std::vector<std::string> seen;
  auto handler = Adapter().Wrap(
      [&seen](const auth::Principal& p, const httplib::Request&) -> StatusOr<Answer> {
        seen.push_back(p.tenant);
        return Answer::Json(200, {{"ok", true}});
      });
  Admission admitted{auth::Principal{"acme", config_.FindTier("pro")}};
  struct Case {
    const char* name;
    const char* authorization;
    const Admission* admission;  // nullptr: nothing admitted.
    int status;
    int key_checks;  // The authenticator's calls for this request.
  };
  const Case cases[] = {
      {"admitted, no key sent again", "", &admitted, 200, 0},
      {"not admitted: the key is checked here", kKey, nullptr, 200, 1},
      {"admitted, past the rate", kKey, &admitted, 429, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const int before = authenticator_.calls();
    httplib::Response res =
        Call(handler, c.authorization, c.admission != nullptr ? *c.admission : Admission{});
    EXPECT_EQ(res.status, c.status) << res.body;
    EXPECT_EQ(authenticator_.calls() - before, c.key_checks);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"acme", "acme"}));
}

}  // namespace
}  // namespace coderunner::api
