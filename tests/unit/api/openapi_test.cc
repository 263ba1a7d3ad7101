// The OpenAPI document against what the real Server registers.
#include "api/openapi.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "coderunner/api/server.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/images.h"
#include "coderunner/engine/system.h"
#include "coderunner/engine/volumes.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/jobs/webhook_sender.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "coderunner/sandboxes/sandbox_store.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "coderunner/volumes/volume_service.h"
#include "unit/engine/fake_transport.h"
#include "unit/temp_dir.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// "GET /v1/jobs/{id}" for every operation of the document.
std::set<std::string> DocumentedRoutes(const json& doc) {
  std::set<std::string> out;
  for (auto& [path, item] : doc["paths"].items()) {
    for (auto& [method, op] : item.items()) {
      std::string upper = method;
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out.insert(upper + " " + path);
    }
  }
  return out;
}

// A real Server with every optional part present (volumes, sandboxes), on
// the fake engine transport: nothing is started, only routes registered.
class OpenApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testutil::MakeTempDir("openapi");
    config_ = config::DefaultConfig();
    config_.workspace_dir = dir_ + "/ws";
    config_.artifacts.dir = dir_ + "/artifacts";
    config_.volumes.dir = dir_ + "/volumes";
    config_.data_dir = dir_ + "/data";
    auto store = store::SqliteJobStore::Open(dir_ + "/jobs.db");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    auto sandbox_store = sandboxes::SandboxStore::Open(dir_ + "/sandboxes");
    ASSERT_TRUE(sandbox_store.ok()) << sandbox_store.status().ToString();
    sandbox_store_ = std::move(*sandbox_store);
    sandbox_runner_ = std::make_unique<isolation::ContainerRunner>(
        containers_, policy_, isolation::RunnerOptions{dir_ + "/ws", dir_ + "/artifacts", {}});
    jobs::JobServiceDeps deps;
    deps.config = &config_;
    deps.store = store_.get();
    deps.queue = &queue_;
    deps.hub = &hub_;
    deps.metrics = &metrics_;
    deps.images = &images_;
    deps.runner = sandbox_runner_.get();
    deps.containers = &containers_;
    deps.webhooks = &webhooks_;
    deps.outbox = store_.get();
    deps.volumes = &volume_service_;
    jobs_ = jobs::JobService::Create(deps);
    sandboxes_ = std::make_unique<sandboxes::SandboxManager>(
        config_, containers_, policy_, *sandbox_store_, &metrics_,
        sandboxes::SandboxLayout{dir_ + "/sbx-ws", dir_ + "/sbx-out", {}, &uids_, nullptr, {}},
        &volume_service_);
    ServerDeps server_deps{&config_,        &system_,         &images_, jobs_.get(),     &metrics_,
                           &authenticator_, &volume_service_, nullptr,  sandboxes_.get()};
    server_deps.sandbox_processes = &processes_;
    server_deps.sandbox_files = &files_;
    server_ = std::make_unique<Server>(server_deps);
  }

  void TearDown() override {
    server_.reset();
    sandboxes_.reset();
    jobs_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string dir_;
  config::Config config_;
  testutil::FakeTransport transport_;
  engine::SystemClient system_{transport_, std::chrono::seconds(1)};
  engine::ImageClient images_{transport_, std::chrono::seconds(1)};
  engine::ContainerClient containers_{transport_, std::chrono::seconds(1)};
  engine::VolumeClient volume_client_{transport_, std::chrono::seconds(1)};
  isolation::UidPool uids_{isolation::kDefaultFirstJobUid, 64};
  volumes::VolumeService volume_service_{config_, volume_client_, uids_};
  isolation::ContainerPolicy policy_{isolation::PolicySettings{}, "openapi-test"};
  MetricsRegistry metrics_;
  jobs::JobQueue queue_{10};
  jobs::JobHub hub_;
  jobs::WebhookSender webhooks_{jobs::WebhookOptions{}};
  auth::Authenticator authenticator_{config_};
  std::unique_ptr<store::SqliteJobStore> store_;
  std::unique_ptr<sandboxes::SandboxStore> sandbox_store_;
  std::unique_ptr<isolation::ContainerRunner> sandbox_runner_;
  std::unique_ptr<jobs::JobService> jobs_;
  std::unique_ptr<sandboxes::SandboxManager> sandboxes_;
  engine::ExecClient execs_{transport_, std::chrono::seconds(1)};
  sandboxes::SandboxProcesses processes_{execs_, sandboxes::ProcessLimits{}};
  sandboxes::SandboxFiles files_{execs_, 1 << 20};
  std::unique_ptr<Server> server_;
};

TEST(OpenApiDocumentTest, ParsesAndIsOpenApi3) {
  json doc = json::parse(OpenApiDocument(), nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(doc.is_discarded()) << "src/api/openapi.json is not valid JSON";
  ASSERT_TRUE(doc.contains("openapi") && doc["openapi"].is_string());
  EXPECT_EQ(doc["openapi"].get<std::string>().rfind("3.", 0), 0u) << doc["openapi"];
  EXPECT_TRUE(doc["info"].contains("title"));
  EXPECT_TRUE(doc["info"].contains("version"));
  EXPECT_TRUE(doc["paths"].is_object());
  EXPECT_TRUE(doc["components"]["schemas"].contains("Error"));
}

TEST(OpenApiDocumentTest, EveryReferenceResolves) {
  json doc = json::parse(OpenApiDocument());
  std::vector<const json*> todo = {&doc};
  int refs = 0;
  while (!todo.empty()) {
    const json* j = todo.back();
    todo.pop_back();
    if (j->is_object()) {
      if (auto r = j->find("$ref"); r != j->end()) {
        std::string ref = r->get<std::string>();
        ASSERT_EQ(ref.rfind("#/", 0), 0u) << ref;
        EXPECT_TRUE(doc.contains(json::json_pointer(ref.substr(1)))) << "dangling " << ref;
        ++refs;
      }
      for (const auto& [k, v] : j->items()) todo.push_back(&v);
    } else if (j->is_array()) {
      for (const auto& v : *j) todo.push_back(&v);
    }
  }
  EXPECT_GT(refs, 0);
}

TEST_F(OpenApiTest, EveryRegisteredRouteIsDocumented) {
  std::set<std::string> documented = DocumentedRoutes(json::parse(OpenApiDocument()));
  ASSERT_FALSE(server_->routes().empty());
  for (const auto& r : server_->routes()) {
    EXPECT_TRUE(documented.count(r.method + " " + r.path))
        << r.method << " " << r.path << " (pattern " << r.pattern
        << ") is served but missing from src/api/openapi.json";
  }
}

TEST_F(OpenApiTest, EveryDocumentedRouteIsRegistered) {
  std::set<std::string> registered;
  for (const auto& r : server_->routes()) registered.insert(r.method + " " + r.path);
  for (const auto& d : DocumentedRoutes(json::parse(OpenApiDocument()))) {
    EXPECT_TRUE(registered.count(d)) << d << " is documented but the server does not serve it";
  }
}

TEST_F(OpenApiTest, EveryBodyRouteIsCheckedAndDocumentsTheCheck) {
  json doc = json::parse(OpenApiDocument());
  for (const auto& r : server_->routes()) {
    SCOPED_TRACE(r.method + " " + r.path);
    // POST and DELETE carry bodies: RouteTable checks each before its
    // handler, and the document says what a refused body gets.
    EXPECT_EQ(r.body, r.method != "GET");
    if (!r.body) continue;
    std::string method = r.method;
    for (auto& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const json& op = doc["paths"][r.path][method];
    EXPECT_TRUE(op.contains("responses") && op["responses"].contains("400"))
        << "a refused body is 400 (invalid_json, json_too_deep): document it";
  }
}

TEST_F(OpenApiTest, ServesTheMainRoutesOfEveryModule) {
  std::set<std::string> registered;
  for (const auto& r : server_->routes()) registered.insert(r.method + " " + r.path);
  for (const char* want :
       {"GET /healthz", "GET /openapi.json", "POST /v1/execute", "GET /v1/jobs/{id}",
        "POST /v1/intents", "GET /v1/volumes/{id}/files", "POST /v1/sandboxes/{id}/execute",
        "GET /api/v2/runtimes", "POST /api/v2/execute"}) {
    EXPECT_TRUE(registered.count(want)) << want;
  }
}

}  // namespace
}  // namespace coderunner::api
