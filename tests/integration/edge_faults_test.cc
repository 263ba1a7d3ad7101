// The edge under faults (issue 30), with real parts on one engine (the
// engine does not matter here): an engine that stalls, behind a proxy that
// stops forwarding as a SIGSTOPped engine does, and a disk that fills, a
// real tmpfs. Each asserts what the docs promise: probes and
// submissions never wait on the engine, a full disk is 507 with /readyz
// false, and nothing accepted is lost.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine_fixture.h"
#include "job_requests.h"
#include "unix_proxy.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::string TempDir(const char* name) {
  std::string tmpl = std::string("/tmp/coderunner-") + name + "-XXXXXX";
  return mkdtemp(tmpl.data());
}

// A server whose engine socket is a proxy the test can freeze.
class EngineStallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("stall");
    proxy_ = std::make_unique<UnixProxy>(dir_ + "/engine.sock", EngineSocketUnderTest());
    ASSERT_TRUE(proxy_->Start());
    // probe_cache_ms 0: every /readyz asks for a check of its own.
    server_ = std::make_unique<ServerProcess>(
        "server: {listen: 127.0.0.1:0, probe_cache_ms: 0}\njobs: {max_concurrent: 2}\n",
        proxy_->path());
    ASSERT_TRUE(server_->started()) << server_->log();
  }
  void TearDown() override {
    proxy_->Thaw();
    if (server_ && server_->started()) {
      EXPECT_TRUE(server_->Stop()) << server_->log();
    }
    server_.reset();
    proxy_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string dir_;
  std::unique_ptr<UnixProxy> proxy_;
  std::unique_ptr<ServerProcess> server_;
};

// Before: POST /v1/jobs waited for the engine's image digest, /readyz
// hung for the stall and then answered 200, and with 40 of them in flight
// every /healthz timed out. Each answer must come while the engine is
// still stalled; the stall ends only after they all came (or after 20 s,
// which a request that waits on the engine then shows).
TEST_F(EngineStallTest, ProbesAndSubmissionsNeverWaitOnAStalledEngine) {
  const std::string warm = Submit(*server_, "print('warm')");
  ASSERT_FALSE(warm.empty());
  EXPECT_EQ(WaitTerminal(*server_, warm)["status"], "succeeded");
  ASSERT_EQ(server_->Get("/readyz").status, 200);

  proxy_->Freeze();
  std::atomic<bool> stalled{true};
  std::atomic<bool> done{false};
  std::thread safety([&] {
    for (int i = 0; i < 2000 && !done; ++i) std::this_thread::sleep_for(10ms);
    stalled = false;
    proxy_->Thaw();
  });
  constexpr int kEach = 20;
  std::vector<HttpAnswer> submits(kEach), readies(kEach);
  std::vector<bool> submit_in_stall(kEach), ready_in_stall(kEach);
  std::vector<std::thread> clients;
  for (int i = 0; i < kEach; ++i) {
    clients.emplace_back([&, i] {
      submits[i] = server_->Post("/v1/jobs", Python("print(" + std::to_string(i) + ")").dump());
      submit_in_stall[i] = stalled;
    });
    clients.emplace_back([&, i] {
      readies[i] = server_->Get("/readyz");
      ready_in_stall[i] = stalled;
    });
  }
  int healthz_ok = 0;
  for (int i = 0; i < 10; ++i) {
    HttpAnswer h = server_->Get("/healthz");
    healthz_ok += h.status == 200 && stalled ? 1 : 0;
  }
  for (auto& t : clients) t.join();
  const bool all_in_stall = stalled;
  done = true;
  safety.join();

  EXPECT_TRUE(all_in_stall) << "some request waited for the engine to come back";
  EXPECT_EQ(healthz_ok, 10);
  std::vector<std::string> ids;
  for (int i = 0; i < kEach; ++i) {
    EXPECT_EQ(submits[i].status, 202) << submits[i].body;
    EXPECT_TRUE(submit_in_stall[i]) << "submission " << i << " waited on the engine";
    EXPECT_EQ(readies[i].status, 503) << readies[i].body;
    EXPECT_EQ(readies[i].json["error"]["code"], "engine_unavailable") << readies[i].body;
    EXPECT_TRUE(ready_in_stall[i]) << "/readyz " << i << " waited on the engine";
    if (submits[i].json.is_object()) ids.push_back(submits[i].json.value("id", ""));
  }
  // Nothing accepted is lost: each runs once the engine is back.
  for (size_t i = 0; i < ids.size(); ++i) {
    json rec = WaitTerminal(*server_, ids[i]);
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump().substr(0, 1000);
  }
  EXPECT_EQ(server_->Get("/readyz").status, 200);
}

// Before: a job whose program ended in 0.3 s, inside a stall of the engine
// that outlasted its 2 s limit, ended `timeout` (SIGKILL): the stall's wall
// clock was charged to the program. The program marks /output once it runs;
// the engine stalls from then on for longer than the limit.
TEST_F(EngineStallTest, AStallAroundAProgramThatEndedInTimeIsNotChargedToIt) {
  json job = Python(
      "import time\n"
      "open('/output/running', 'w').close()\n"
      "time.sleep(0.3)\n"
      "print('done', flush=True)\n");
  job["limits"] = {{"timeout_ms", 2000}};
  HttpAnswer submitted = server_->Post("/v1/jobs", job.dump());
  ASSERT_EQ(submitted.status, 202) << submitted.body;
  const std::string id = submitted.json.value("id", "");
  const std::string marker = server_->artifacts_dir() + "/" + id + "/running";
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(marker); }, 30s));
  std::this_thread::sleep_for(100ms);  // The start call's answer is through.
  proxy_->Freeze();
  std::this_thread::sleep_for(4s);  // Twice the limit.
  proxy_->Thaw();
  json rec = WaitTerminal(*server_, id);
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump().substr(0, 1000);
  const json& result = rec["result"];
  ASSERT_TRUE(result.is_object()) << rec.dump().substr(0, 1000);
  EXPECT_EQ(result["exit_code"], 0);
  EXPECT_TRUE(result["signal"].is_null()) << result["signal"];
  EXPECT_EQ(result["stdout"], "done\n");
  EXPECT_LT(result["metrics"]["run_ms"].get<int64_t>(), 2000) << result["metrics"].dump();
}

// A server whose artifacts directory is a small tmpfs of its own.
class DiskFullTest : public EngineTest {
 protected:
  static constexpr int64_t kDiskBytes = 96LL << 20;
  static constexpr int64_t kReserveBytes = 32LL << 20;

  void SetUp() override {
    disk_ = TempDir("disk");
    const std::string options = "size=" + std::to_string(kDiskBytes) + ",mode=0755";
    ASSERT_EQ(mount("tmpfs", disk_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()), 0)
        << strerror(errno);
    EngineTest::SetUp();
  }
  void TearDown() override {
    EngineTest::TearDown();
    // The service made artifacts.dir a nosuid,nodev bind mount of itself.
    umount2((disk_ + "/artifacts").c_str(), MNT_DETACH);
    umount2(disk_.c_str(), MNT_DETACH);
    std::error_code ec;
    std::filesystem::remove_all(disk_, ec);
  }
  // The job store (SQLite) and the artifacts both live on the small disk.
  std::string ExtraConfig() const override {
    return "server: {listen: 127.0.0.1:0, shutdown_grace_s: 2}\nartifacts: {dir: " + disk_ +
           "/artifacts}\ndata_dir: " + disk_ +
           "/data\njobs: {max_concurrent: 4, disk_reserve_bytes: " + std::to_string(kReserveBytes) +
           "}\n";
  }

  // Fills the tmpfs with one file until `left` bytes are free.
  void FillLeaving(int64_t left) {
    struct statvfs vfs;
    ASSERT_EQ(statvfs(disk_.c_str(), &vfs), 0);
    const int64_t free_bytes = static_cast<int64_t>(vfs.f_bavail) * vfs.f_frsize;
    std::ofstream filler(disk_ + "/filler", std::ios::binary | std::ios::app);
    const std::string block(1 << 20, 'f');
    for (int64_t written = 0; written + left + (1 << 20) <= free_bytes; written += 1 << 20) {
      filler.write(block.data(), block.size());
    }
  }

  // Fills the tmpfs to the last byte.
  void FillUp() {
    FillLeaving(0);
    const int fd = open((disk_ + "/filler-tail").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ASSERT_GE(fd, 0) << strerror(errno);
    const std::string block(4096, 't');
    while (write(fd, block.data(), block.size()) > 0) {
    }
    const int err = errno;
    close(fd);
    ASSERT_EQ(err, ENOSPC) << strerror(err);
  }
  void FreeUp() {
    std::filesystem::remove(disk_ + "/filler");
    std::filesystem::remove(disk_ + "/filler-tail");
  }

  std::string disk_;
};

// The sum of every sample of `name` in /metrics, whatever its labels.
double MetricTotal(const ServerProcess& s, const std::string& name) {
  std::istringstream in(s.Get("/metrics").body);
  double total = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + "{", 0) == 0 || line.rfind(name + " ", 0) == 0) {
      total += std::stod(line.substr(line.rfind(' ') + 1));
    }
  }
  return total;
}

// The host directory that is the /output of the running job that created
// `marker` in it ("" until one is found).
std::string OutputHolding(const std::string& artifacts_dir, const std::string& marker) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(artifacts_dir, ec)) {
    if (std::filesystem::exists(e.path() / marker, ec)) return e.path().string();
  }
  return "";
}

// Before: jobs that finished while the disk was full failed to store their
// results, stayed `running` after space came back, and ran a second time
// at the next restart. Now each result waits in memory and is stored once
// there is room: every job ends succeeded, on its first attempt, with its
// whole output, and nothing is lost.
TEST_F(DiskFullTest, ResultsThatFindTheDiskFullAreStoredOnceThereIsRoom) {
  constexpr int kJobs = 4;
  constexpr size_t kOutput = 512 << 10;  // Each result grows the store's log past its free pages.
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    json job = Python(
        "import os, sys, time\n"
        "open('/output/.ready-" +
        std::to_string(i) +
        "', 'w').close()\n"
        "while not os.path.exists('/output/.go'):\n"
        "    time.sleep(0.01)\n"
        "sys.stdout.write('x' * " +
        std::to_string(kOutput) + ")\n");
    HttpAnswer a = server_->Post("/v1/jobs", job.dump());
    ASSERT_EQ(a.status, 202) << a.body;
    ids.push_back(a.json.value("id", ""));
  }
  std::vector<std::string> outputs(kJobs);
  ASSERT_TRUE(Eventually([&] {
    for (int i = 0; i < kJobs; ++i) {
      if (outputs[i].empty()) {
        outputs[i] = OutputHolding(disk_ + "/artifacts", ".ready-" + std::to_string(i));
      }
    }
    return std::none_of(outputs.begin(), outputs.end(), [](const auto& o) { return o.empty(); });
  })) << "not every job started";

  // Every job ends while the disk is full.
  FillUp();
  for (const std::string& o : outputs) std::ofstream(o + "/.go").flush();
  EXPECT_TRUE(Eventually([&] {
    return MetricTotal(*server_, "coderunner_result_store_retries_total") >= 1;
  })) << "no result found the disk full\n"
      << server_->log();
  for (const std::string& id : ids) {
    json rec = json::parse(server_->Get("/v1/jobs/" + id).body, nullptr, false);
    EXPECT_TRUE(rec["status"] == "running" || rec["status"] == "succeeded") << rec.dump();
  }
  EXPECT_EQ(server_->Get("/readyz").status, 507);

  FreeUp();
  for (const std::string& id : ids) {
    json rec = WaitTerminal(*server_, id);
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump().substr(0, 1000);
    EXPECT_EQ(rec["attempt"], 1) << "run twice";
    EXPECT_EQ(rec["result"]["stdout"].get<std::string>().size(), kOutput);
  }
}

// Before: a SIGTERM while a result waited for room never ended: the
// shutdown waited for the worker, which offered the result to the store
// until it took it. Now the result is given up at the end of the grace
// (2 s here), the service exits 0, and the job, still running in the
// store, runs again at the next start: nothing accepted is lost.
TEST_F(DiskFullTest, AShutdownEndsAfterItsGraceWhileAResultWaitsForRoom) {
  // The second run finds no gate in its fresh /output: it goes on after 5 s.
  json job = Python(
      "import os, sys, time\n"
      "open('/output/.ready', 'w').close()\n"
      "t = time.time()\n"
      "while not os.path.exists('/output/.go') and time.time() - t < 5:\n"
      "    time.sleep(0.01)\n"
      "sys.stdout.write('x' * (512 << 10))\n");
  HttpAnswer a = server_->Post("/v1/jobs", job.dump());
  ASSERT_EQ(a.status, 202) << a.body;
  const std::string id = a.json.value("id", "");
  std::string output;
  ASSERT_TRUE(Eventually([&] {
    output = OutputHolding(disk_ + "/artifacts", ".ready");
    return !output.empty();
  }));
  FillUp();
  std::ofstream(output + "/.go").flush();
  EXPECT_TRUE(Eventually([&] {
    return MetricTotal(*server_, "coderunner_result_store_retries_total") >= 1;
  })) << "the result never found the disk full\n"
      << server_->log();

  EXPECT_TRUE(server_->Stop(std::chrono::seconds(30))) << "the shutdown hung\n" << server_->log();
  FreeUp();
  auto restarted = std::make_unique<ServerProcess>(*server_);
  ASSERT_TRUE(restarted->started()) << restarted->log();
  server_ = std::move(restarted);
  json rec = WaitTerminal(*server_, id);
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump().substr(0, 1000);
  EXPECT_EQ(rec["attempt"], 2) << "a result given up at shutdown means a second run";
}

TEST_F(DiskFullTest, BelowTheReserveEverySubmissionIs507AndReadyzIsFalse) {
  FillLeaving(kReserveBytes / 2);
  HttpAnswer refused = server_->Post("/v1/jobs", Python("print(1)").dump());
  EXPECT_EQ(refused.status, 507) << refused.body;
  EXPECT_EQ(refused.json["error"]["code"], "disk_full") << refused.body;
  EXPECT_EQ(refused.headers["retry-after"], "30");
  HttpAnswer execute = server_->Execute("python", "print(1)");
  EXPECT_EQ(execute.status, 507) << execute.body;
  // /readyz says so (past its 1 s cache).
  HttpAnswer ready;
  for (int i = 0; i < 300; ++i) {
    ready = server_->Get("/readyz");
    if (ready.status != 200) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(ready.status, 507) << ready.body;
  EXPECT_EQ(ready.json["error"]["code"], "disk_full") << ready.body;

  // Room again: accepted and run, with its artifact on the disk.
  std::filesystem::remove(disk_ + "/filler");
  const std::string id =
      Submit(*server_, "open('/output/a.txt', 'w').write('x' * 1000)\nprint('ran')");
  ASSERT_FALSE(id.empty());
  json rec = WaitTerminal(*server_, id);
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump().substr(0, 1000);
  EXPECT_EQ(std::filesystem::file_size(disk_ + "/artifacts/" + id + "/a.txt"), 1000u);
}

constexpr const char* kHarnessKey = "harness-key-0123456789";  // tier enterprise
constexpr const char* kOtherKey = "other-key-0123456789";      // tier pro

// One tenant's evaluation harness waits on its jobs from many connections
// at once, while another tenant goes about its business.
class ManyWaitersTest : public EngineTest {
 protected:
  // No warm pool: a pooled job's /output is its container's slot directory,
  // not artifacts/<job id>, where the test opens the gate (seen twice in
  // CI: the gate never reached the job, which ran to its timeout).
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"harness", "enterprise", kHarnessKey}, {"other", "pro", kOtherKey}}) +
           "pool: {enabled: false}\n";
  }

  double Metric(const std::string& family) {
    std::istringstream in(server_->Get("/metrics").body);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(family + " ", 0) == 0) return std::stod(line.substr(family.size() + 1));
    }
    return -1;
  }
};

// Issue 30: 1,000 waiters of one enterprise tenant got 176 answers, 709
// 429s and 115 closed connections; one local user's 16 parallel waits got
// 12 429s. Now every wait is held, none refused or dropped, and the other
// tenant is served meanwhile.
TEST_F(ManyWaitersTest, AThousandWaitersOfOneTenantAreAllAnswered) {
  constexpr int kWaiters = 1000;
  json gated = Python(
      "import os, time\nwhile not os.path.exists('/output/.go'):\n    time.sleep(0.01)\n"
      "print('done')");
  gated["limits"] = {{"timeout_ms", 120000}};
  HttpAnswer sub = server_->Call("POST", "/v1/jobs", kHarnessKey, gated.dump());
  ASSERT_EQ(sub.status, 202) << sub.body;
  const std::string id = sub.json["id"];
  const long rss_before = server_->RssBytes();
  std::vector<HttpAnswer> answers(kWaiters);
  std::vector<std::thread> waiters;
  waiters.reserve(kWaiters);
  for (int i = 0; i < kWaiters; ++i) {
    waiters.emplace_back([&, i] {
      answers[i] = server_->Call("GET", "/v1/jobs/" + id + "/wait?timeout_s=120", kHarnessKey);
    });
  }
  bool all_held = false;
  for (int i = 0; i < 6000 && !all_held; ++i) {
    all_held = Metric("coderunner_long_requests") == kWaiters;
    if (!all_held) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(all_held) << Metric("coderunner_long_requests");
  const long rss_held = server_->RssBytes();
  // The other tenant meanwhile: a job accepted, run and waited on.
  HttpAnswer health = server_->Get("/healthz");
  EXPECT_EQ(health.status, 200);
  HttpAnswer other = server_->Call("POST", "/v1/jobs", kOtherKey, Python("print(7)").dump());
  ASSERT_EQ(other.status, 202) << other.body;
  HttpAnswer other_wait = server_->Call(
      "GET", "/v1/jobs/" + other.json["id"].get<std::string>() + "/wait?timeout_s=120", kOtherKey);
  EXPECT_EQ(other_wait.status, 200) << other_wait.body;
  EXPECT_EQ(other_wait.json["status"], "succeeded") << other_wait.body;

  // The job reads /output/.go once it runs; its /output (this directory)
  // is made as its container is prepared, after the job is marked running,
  // so a file written before would land nowhere (the job then runs to its
  // timeout, and every waiter with it). Under a loaded machine the
  // thousand waiters can be held before the job starts: wait for the
  // directory.
  const std::string output = server_->artifacts_dir() + "/" + id;
  bool prepared = false;
  for (int i = 0; i < 6000 && !prepared; ++i) {
    prepared = std::filesystem::is_directory(output);
    if (!prepared) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(prepared) << "the gated job's /output never appeared: " << output;
  const std::string go = output + "/.go";
  std::ofstream(go).close();
  EXPECT_TRUE(std::filesystem::exists(go)) << go;
  for (auto& t : waiters) t.join();
  int answered = 0, refused = 0, dropped = 0;
  for (const HttpAnswer& a : answers) {
    answered += a.status == 200 && a.json.is_object() && a.json["status"] == "succeeded";
    refused += a.status == 429;
    dropped += a.status == 0;
  }
  EXPECT_EQ(answered, kWaiters);
  EXPECT_EQ(refused, 0);
  EXPECT_EQ(dropped, 0);
  std::printf("FIGURE many_waiters_rss_growth_bytes %ld\n", rss_held - rss_before);
}

}  // namespace
}  // namespace coderunner::testing
