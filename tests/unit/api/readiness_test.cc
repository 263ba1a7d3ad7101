// Readiness (Server::CheckReady and GET /readyz): the job store is pinged
// first, and a store that does not answer makes the node not ready, named
// in the answer, before the engine is asked.
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
#include "unit/engine/fake_transport.h"
#include "unit/temp_dir.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// A store whose Ping answers `ping` and counts its calls; nothing else is
// used by readiness, so every other call fails.
class PingStore : public store::JobStore {
 public:
  Status ping;
  int pings = 0;

  Status Ping() override {
    ++pings;
    return ping;
  }
  Status Insert(const std::vector<store::JobRecord>&) override { return No(); }
  Status Transition(const std::string&, store::JobStatus, int64_t, const std::string&,
                    const std::string&, const std::string&, int64_t) override {
    return No();
  }
  StatusOr<std::vector<store::JobRecord>> Claim(const std::string&, int, int64_t,
                                                int64_t) override {
    return No();
  }
  StatusOr<std::vector<std::string>> RenewLeases(const std::string&,
                                                 const std::vector<std::string>&, int64_t,
                                                 int64_t) override {
    return No();
  }
  StatusOr<store::ExpiredLeases> RequeueExpired(int64_t, int, const std::string&) override {
    return No();
  }
  Status UpdateProgress(const std::string&, const std::string&) override { return No(); }
  StatusOr<store::JobRecord> Get(const std::string&, const std::string&) override { return No(); }
  StatusOr<store::ListPage> List(const store::ListFilter&) override { return No(); }
  StatusOr<std::vector<store::JobRecord>> NonTerminal() override { return No(); }
  StatusOr<std::vector<std::string>> PurgeFinishedBefore(int64_t) override { return No(); }
  StatusOr<store::Footprint> TenantFootprint(const std::string&) override { return No(); }
  StatusOr<std::vector<std::string>> PurgeBeyond(const std::string&,
                                                 const store::FootprintBounds&) override {
    return No();
  }
  StatusOr<std::optional<std::string>> CacheGet(const std::string&, int64_t) override {
    return No();
  }
  Status CachePut(const std::string&, const std::string&, int64_t) override { return No(); }
  StatusOr<int> CachePurgeExpired(int64_t) override { return No(); }

 private:
  static Status No() { return InternalError("not used by readiness", "unused"); }
};

// A real Server on the fake engine transport, with `store` as the store
// readiness pings (the job service keeps a SQLite store of its own).
class Rig {
 public:
  Rig() : dir_(testutil::MakeTempDir("readiness")) {
    config_.server.listen = "127.0.0.1:0";
    config_.server.probe_cache_ms = 0;
    config_.data_dir = config_.workspace_dir = config_.artifacts.dir = dir_;
    auto jobs_store = store::SqliteJobStore::Open(dir_ + "/jobs.db");
    if (!jobs_store.ok()) throw std::runtime_error(jobs_store.status().ToString());
    jobs_store_ = std::move(*jobs_store);
    runner_ = std::make_unique<isolation::ContainerRunner>(
        containers_, policy_, isolation::RunnerOptions{dir_ + "/ws", dir_ + "/artifacts", {}});
    jobs::JobServiceDeps deps;
    deps.config = &config_;
    deps.store = jobs_store_.get();
    deps.queue = &queue_;
    deps.hub = &hub_;
    deps.metrics = &metrics_;
    deps.images = &images_;
    deps.runner = runner_.get();
    deps.containers = &containers_;
    deps.webhooks = &webhooks_;
    deps.outbox = jobs_store_.get();
    jobs_ = jobs::JobService::Create(deps);
  }

  ~Rig() {
    server.reset();
    jobs_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // The engine answers its ping and has every configured image, or is gone.
  void SetEngine(bool up) {
    if (!up) {
      transport.FailEverything(UnavailableError("connect: no such file", "engine_unavailable"));
      return;
    }
    transport.Answer("GET", "/_ping", 200, "OK");
    for (const auto& l : config_.languages) {
      transport.AnswerJson("GET", "/images/" + l.image + "/json", 200,
                           json{{"Id", "sha256:abc"}, {"RepoDigests", json::array()}});
    }
  }

  // More than any disk has: the directories are short of room.
  void WantMoreRoomThanThereIs() { config_.jobs.disk_reserve_bytes = int64_t{1} << 62; }

  void MakeServer(store::JobStore* store) {
    server =
        std::make_unique<Server>(ServerDeps{&config_, &system_, &images_, jobs_.get(), &metrics_,
                                            &authenticator_, nullptr, nullptr, nullptr, store});
  }

  testutil::FakeTransport transport;
  PingStore store;
  std::unique_ptr<Server> server;

 private:
  std::string dir_;
  config::Config config_ = config::DefaultConfig();
  engine::SystemClient system_{transport, std::chrono::seconds(1)};
  engine::ImageClient images_{transport, std::chrono::seconds(1)};
  engine::ContainerClient containers_{transport, std::chrono::seconds(1)};
  isolation::ContainerPolicy policy_{isolation::PolicySettings{}, "readiness-test"};
  MetricsRegistry metrics_;
  jobs::JobQueue queue_{10};
  jobs::JobHub hub_;
  jobs::WebhookSender webhooks_{jobs::WebhookOptions{}};
  auth::Authenticator authenticator_{config_};
  std::unique_ptr<store::SqliteJobStore> jobs_store_;
  std::unique_ptr<isolation::ContainerRunner> runner_;
  std::unique_ptr<jobs::JobService> jobs_;
};

TEST(ReadinessTest, TheStoreIsPingedFirstAndADownStoreIsNamed) {
  struct Case {
    const char* name;
    bool store_up;
    bool engine_up;
    const char* want_reason;  // "" = ready.
    bool engine_asked;
  };
  const Case cases[] = {
      {"both up", true, true, "", true},
      {"store down", false, true, "store_unavailable", false},
      {"engine down", true, false, "engine_unavailable", true},
      {"both down", false, false, "store_unavailable", false},
      {"no room on disk", true, true, "disk_full", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Rig rig;
    if (!c.store_up) rig.store.ping = UnavailableError("connection refused", "store_unavailable");
    if (std::string(c.want_reason) == "disk_full") rig.WantMoreRoomThanThereIs();
    rig.SetEngine(c.engine_up);
    rig.MakeServer(&rig.store);
    Status ready = rig.server->CheckReady();
    EXPECT_EQ(rig.store.pings, 1);
    EXPECT_EQ(ready.reason(), c.want_reason) << ready.ToString();
    EXPECT_EQ(!rig.transport.requests().empty(), c.engine_asked);
    if (!c.store_up) {
      EXPECT_EQ(ready.code(), StatusCode::kUnavailable);
      EXPECT_EQ(ready.message(), "job store not reachable: connection refused");
    }
  }
}

TEST(ReadinessTest, WithoutAStoreOnlyTheEngineIsAsked) {
  Rig rig;
  rig.SetEngine(true);
  rig.MakeServer(nullptr);
  EXPECT_TRUE(rig.server->CheckReady().ok());
  EXPECT_EQ(rig.store.pings, 0);
  ASSERT_FALSE(rig.transport.requests().empty());
  EXPECT_EQ(rig.transport.requests().front().path, "/_ping");
}

TEST(ReadinessTest, ReadyzAnswers503NamingTheStore) {
  Rig rig;
  rig.store.ping = UnavailableError("server closed the connection", "store_unavailable");
  rig.SetEngine(true);
  rig.MakeServer(&rig.store);
  ASSERT_TRUE(rig.server->Bind().ok());
  std::thread serve([&rig] { (void)rig.server->Serve(); });
  httplib::Client client("127.0.0.1", rig.server->port());
  auto res = client.Get("/readyz");
  rig.server->Stop();
  serve.join();
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 503);
  json body = json::parse(res->body);
  EXPECT_EQ(body["error"]["code"], "store_unavailable") << res->body;
  EXPECT_EQ(body["error"]["message"], "job store not reachable: server closed the connection");
  EXPECT_EQ(rig.store.pings, 1);
  EXPECT_TRUE(rig.transport.requests().empty()) << "the engine was asked though the store is down";
}

}  // namespace
}  // namespace coderunner::api
