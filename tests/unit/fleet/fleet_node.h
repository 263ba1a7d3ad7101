// One fleet-mode JobService node for unit tests ("node-a", "node-b", ...):
// its own store handle on a shared PostgreSQL database (a FleetDatabase on
// the test cluster, as in production a fleet shares one), queue, hub,
// runner (a CountingRunner, or containers on a scripted engine) and notices
// on a shared in-process NoticeBus.
#ifndef CODERUNNER_TESTS_UNIT_FLEET_FLEET_NODE_H_
#define CODERUNNER_TESTS_UNIT_FLEET_FLEET_NODE_H_

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "coderunner/engine/containers.h"
#include "coderunner/engine/images.h"
#include "coderunner/fleet/fleet_dispatch.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/store/postgres/pg_job_store.h"
#include "coderunner/wire/job_submission.h"
#include "jobs/job_metrics.h"
#include "pg/temp_postgres.h"
#include "unit/isolation/scripted_engine.h"
#include "unit/jobs/fleet_fakes.h"

namespace coderunner::jobs::fleet_test {

inline constexpr const char* kAcme = "acme";
inline constexpr auto kLong = std::chrono::milliseconds(60000);

inline isolation::PolicySettings Policy() {
  isolation::PolicySettings s;
  s.init_host_path = "/opt/coderunner-init";
  return s;
}

// A fresh database on the shared test cluster (SharedPostgres) for the
// nodes of one test, dropped with this object: declare it before them.
class FleetDatabase {
 public:
  FleetDatabase() {
    auto conninfo = coderunner::testing::SharedPostgres().CreateDatabase();
    EXPECT_TRUE(conninfo.ok()) << conninfo.status().ToString();
    if (conninfo.ok()) conninfo_ = *conninfo;
  }
  ~FleetDatabase() {
    if (!conninfo_.empty()) (void)coderunner::testing::SharedPostgres().DropDatabase(conninfo_);
  }
  FleetDatabase(const FleetDatabase&) = delete;
  FleetDatabase& operator=(const FleetDatabase&) = delete;

  const std::string& conninfo() const { return conninfo_; }

 private:
  std::string conninfo_;
};

// One node: its own store handle, queue, hub, runner and notices.
struct Node {
  // `db`: the conninfo of the fleet's database (FleetDatabase).
  // `slots`: its workers (jobs.max_concurrent); `lease_ms`: store.lease_ms.
  // A non-empty `workspace`: jobs run in containers on the scripted engine
  // (a ContainerRunner with workspaces there), not on the CountingRunner.
  Node(const std::string& name, const std::string& db, testutil::NoticeBus& bus, int slots = 2,
       int64_t lease_ms = 15000, const std::string& workspace = "")
      : runner(name), notices(bus) {
    config = config::DefaultConfig();
    config.instance = name;
    config.jobs.cache_ttl_s = 0;
    config.jobs.max_concurrent = slots;
    config.store.lease_ms = lease_ms;
    store::PgStoreOptions options;
    options.conninfo = db;
    options.max_connections = 4;
    auto opened = store::PgJobStore::Open(options);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    store = std::move(*opened);
    // The orphan sweep at start: no container of this node.
    engine.AnswerJson("GET",
                      "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22io.coderunner."
                      "instance%3D" +
                          name + "%22%2C%22io.coderunner.managed%3Dtrue%22%5D%7D",
                      200, nlohmann::json::array());
    DeclareJobMetrics(metrics);
    JobServiceDeps d;
    d.config = &config;
    d.store = store.get();
    d.queue = &queue;
    d.hub = &hub;
    d.metrics = &metrics;
    d.images = &images;
    d.runner = &runner;
    if (!workspace.empty()) {
      isolation::RunnerOptions options;
      options.workspace_root = workspace;
      options.uids = &uids;
      container_runner = std::make_unique<isolation::ContainerRunner>(containers, policy, options);
      d.runner = container_runner.get();
    }
    d.containers = &containers;
    dispatch = fleet::NewFleetDispatch(fleet::FleetDispatchDeps{
        &config, store.get(), store.get(), &queue, &hub, &metrics, &containers, nullptr, &notices});
    d.dispatch = dispatch.get();
    d.outbox = store.get();
    service = JobService::Create(d);
    EXPECT_TRUE(notices
                    .Start([f = dispatch.get()](const store::JobNotice& n) { f->OnNotice(n); },
                           [f = dispatch.get()] { f->OnResync(); })
                    .ok());
  }
  ~Node() {
    notices.Stop();
    service.reset();
  }

  std::string Submit() {
    auto sub =
        wire::ParseJobSubmission(R"json({"code":"print(1)"})json", service->submission_rules());
    EXPECT_TRUE(sub.ok());
    auto accepted = service->Submit(kAcme, std::move(*sub));
    EXPECT_TRUE(accepted.ok()) << accepted.status().ToString();
    return accepted.ok() ? accepted->record.id : "";
  }
  store::JobRecord Wait(const std::string& id) {
    auto rec = service->Wait(id, kAcme, kLong);
    EXPECT_TRUE(rec.ok()) << rec.status().ToString();
    return rec.ok() ? *rec : store::JobRecord{};
  }

  config::Config config;
  std::unique_ptr<store::PgJobStore> store;
  testutil::ScriptedEngine engine;
  engine::ContainerClient containers{engine, std::chrono::seconds(5)};
  engine::ImageClient images{engine, std::chrono::seconds(5)};
  testutil::CountingRunner runner;
  isolation::ContainerPolicy policy{Policy(), "fleet"};
  isolation::UidPool uids{isolation::kDefaultFirstJobUid, 8};
  std::unique_ptr<isolation::ContainerRunner> container_runner;
  testutil::FakeJobNotices notices;
  JobQueue queue{100};
  JobHub hub;
  MetricsRegistry metrics;
  std::unique_ptr<fleet::FleetDispatch> dispatch;  // Before service, which uses it.
  std::unique_ptr<JobService> service;
};

}  // namespace coderunner::jobs::fleet_test

#endif  // CODERUNNER_TESTS_UNIT_FLEET_FLEET_NODE_H_
