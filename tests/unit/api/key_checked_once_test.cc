// The real Server checks a request's API key once, whichever route it
// takes: the caller found when its body was admitted travels with the
// request to the handler, which does not authenticate it again.
#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/api/server.h"
#include "coderunner/common/sha256.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/images.h"
#include "coderunner/engine/system.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/jobs/webhook_sender.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "unit/api/counting_authenticator.h"
#include "unit/engine/fake_transport.h"
#include "unit/temp_dir.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

constexpr char kKey[] = "Bearer acme-secret-key";

// A real Server with one API key, on the fake engine transport (no route
// asked here reaches the engine), serving on loopback.
class KeyCheckedOnceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testutil::MakeTempDir("key-once");
    config_.server.listen = "127.0.0.1:0";
    config_.data_dir = config_.workspace_dir = config_.artifacts.dir = dir_;
    config_.auth.mode = "api_keys";
    config_.auth.keys = {{"acme", "pro", Sha256Hex("acme-secret-key")}};
    auto store = store::SqliteJobStore::Open(dir_ + "/jobs.db");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    runner_ = std::make_unique<isolation::ContainerRunner>(
        containers_, policy_, isolation::RunnerOptions{dir_ + "/ws", dir_ + "/artifacts", {}});
    jobs::JobServiceDeps deps;
    deps.config = &config_;
    deps.store = store_.get();
    deps.queue = &queue_;
    deps.hub = &hub_;
    deps.metrics = &metrics_;
    deps.images = &images_;
    deps.runner = runner_.get();
    deps.containers = &containers_;
    deps.webhooks = &webhooks_;
    deps.outbox = store_.get();
    jobs_ = jobs::JobService::Create(deps);
    server_ = std::make_unique<Server>(
        ServerDeps{&config_, &system_, &images_, jobs_.get(), &metrics_, &authenticator_, nullptr});
    ASSERT_TRUE(server_->Bind().ok());
    serve_ = std::thread([this] { (void)server_->Serve(); });
  }

  void TearDown() override {
    if (server_) server_->Stop();
    if (serve_.joinable()) serve_.join();
    server_.reset();
    jobs_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  httplib::Result Send(const std::string& method, const std::string& path, const std::string& body,
                       const std::string& authorization) {
    httplib::Client client("127.0.0.1", server_->port());
    httplib::Headers headers;
    if (!authorization.empty()) headers.emplace("Authorization", authorization);
    if (method == "GET") return client.Get(path.c_str(), headers);
    return client.Post(path.c_str(), headers, body, "application/json");
  }

  std::string dir_;
  config::Config config_ = config::DefaultConfig();
  testutil::FakeTransport transport_;
  engine::SystemClient system_{transport_, std::chrono::seconds(1)};
  engine::ImageClient images_{transport_, std::chrono::seconds(1)};
  engine::ContainerClient containers_{transport_, std::chrono::seconds(1)};
  isolation::ContainerPolicy policy_{isolation::PolicySettings{}, "key-once-test"};
  MetricsRegistry metrics_;
  jobs::JobQueue queue_{10};
  jobs::JobHub hub_;
  jobs::WebhookSender webhooks_{jobs::WebhookOptions{}};
  testutil::CountingAuthenticator authenticator_{config_};
  std::unique_ptr<store::SqliteJobStore> store_;
  std::unique_ptr<isolation::ContainerRunner> runner_;
  std::unique_ptr<jobs::JobService> jobs_;
  std::unique_ptr<Server> server_;
  std::thread serve_;
};

TEST_F(KeyCheckedOnceTest, EachRequestsKeyIsCheckedOnce) {
  struct Case {
    const char* name;
    const char* method;
    const char* path;
    std::string body;
    const char* authorization;
    int status;
    const char* code;  // The error's, when one.
  };
  const Case cases[] = {
      {"execute, body parsed for the handler", "POST", "/v1/execute", R"({"code":1})", kKey, 400,
       "invalid_request"},
      {"batch, body parsed for the handler", "POST", "/v1/jobs/batch", R"({"jobs":"x"})", kKey, 400,
       "invalid_request"},
      {"batch without a body", "POST", "/v1/jobs/batch", "", kKey, 400, "invalid_request"},
      {"a handler that reads the body itself", "POST", "/v1/intents", R"({"intent":"x"})", kKey,
       503, "llm_not_configured"},
      {"a GET", "GET", "/v1/jobs", "", kKey, 200, nullptr},
      {"an unknown key, refused before the body is parsed", "POST", "/v1/execute",
       R"j({"code":"print(1)"})j", "Bearer nope", 401, "unauthenticated"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const int before = authenticator_.calls();
    auto res = Send(c.method, c.path, c.body, c.authorization);
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, c.status) << res->body;
    if (c.code != nullptr) {
      EXPECT_EQ(json::parse(res->body)["error"]["code"], c.code) << res->body;
    }
    EXPECT_EQ(authenticator_.calls() - before, 1) << "the key was checked more than once";
  }
}

}  // namespace
}  // namespace coderunner::api
