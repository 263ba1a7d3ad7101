// ContainerRunner's warm-pool path over the fake engine transport: an
// eligible job takes the idle pooled container, is started by a "go"
// message on its FIFO (the test plays coderunner-init and reads it), and
// ends at init's end markers, without a container of its own.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/isolation/container_runner.h"
#include "coderunner/isolation/init_trailer.h"
#include "coderunner/isolation/mechanism.h"
#include "coderunner/isolation/warm_pool.h"
#include "unit/isolation/scripted_engine.h"

namespace coderunner::isolation {
namespace {

using testutil::MuxFrame;

constexpr const char* kStart = "/containers/p1/start";
constexpr const char* kAttach = "/containers/p1/attach?stream=1&stdout=1&stderr=1";
constexpr const char* kRemove = "/containers/p1?force=1&v=1";
constexpr const char* kPoolCreate = "POST /containers/create?name=coderunner-pool-";

PolicySettings Settings() {
  PolicySettings s;
  s.init_host_path = "/opt/coderunner-init";
  return s;
}

// Waits (bounded) until `done` holds; the bound only keeps a broken pool
// from hanging the test, it is not a timing assertion.
bool Eventually(const std::function<bool()>& done) {
  for (auto until = std::chrono::steady_clock::now() + testutil::kHangGuard;
       std::chrono::steady_clock::now() < until;) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

// The FIFO of the only pool slot under `workspace_root` ("" unless there
// is exactly one).
std::string OnlySlotFifo(const std::string& workspace_root) {
  std::vector<std::string> slots;
  for (const auto& slot : std::filesystem::directory_iterator(workspace_root)) {
    slots.push_back(slot.path().string());
  }
  return slots.size() == 1 ? slots[0] + "/" + std::string(kGoFifo) : "";
}

// The payload of the "go" message ("CRGO", uint32 LE length, payload) read
// from `fifo`; nullopt if none came within the hang guard.
std::optional<std::string> ReadGo(const std::string& fifo) {
  int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string msg;
  auto complete = [&msg] {
    if (msg.size() < 8) return false;
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) {
      n |= static_cast<uint32_t>(static_cast<uint8_t>(msg[4 + i])) << (8 * i);
    }
    return msg.size() >= 8 + static_cast<size_t>(n);
  };
  const auto guard = std::chrono::steady_clock::now() + testutil::kHangGuard;
  while (!complete() && std::chrono::steady_clock::now() < guard) {
    pollfd p{fd, POLLIN, 0};
    (void)poll(&p, 1, 50);
    char buf[4096];
    ssize_t got = read(fd, buf, sizeof(buf));
    if (got > 0) msg.append(buf, static_cast<size_t>(got));
  }
  close(fd);
  if (!complete() || msg.compare(0, 4, "CRGO") != 0) return std::nullopt;
  return msg.substr(8);
}

// init's trailer on stderr, ending with the go message's nonce.
std::string Trailer(const std::string& nonce, int exit_code) {
  return "\x1e"
         "coderunner-init {\"exit_code\":" +
         std::to_string(exit_code) + ",\"wall_us\":9000,\"cpu_us\":4000,\"eof\":\"" + nonce +
         "\"}\n";
}

class ContainerRunnerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override { Reset(); }
  void TearDown() override { Clear(); }

  // A fresh engine, pool and runner, the pool not started yet.
  void Reset() {
    Clear();
    char tmpl[] = "/tmp/coderunner-runpool-XXXXXX";
    root_ = mkdtemp(tmpl);
    engine_ = std::make_unique<testutil::ScriptedEngine>();
    // Every create (the pool's) is "p1", running, as the policy asked.
    engine_->AnswerCreatesAs("p1", /*running=*/true);
    engine_->Answer("POST", kAttach, 200, "");
    engine_->Answer("POST", kStart, 204, "");
    engine_->Answer("DELETE", kRemove, 204, "");
    engine_->HoldAttach();
    containers_ = std::make_unique<engine::ContainerClient>(*engine_, std::chrono::seconds(5));
    PoolOptions o;
    o.size = 1;
    o.max_per_shape = 1;
    o.max_containers = 1;
    pool_ =
        std::make_unique<WarmPool>(*containers_, policy_, uids_, o, root_ + "/pool", root_ + "/art",
                                   ArtifactCaps{}, &metrics_, std::chrono::seconds(60));
    RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.artifacts_root = root_ + "/art";
    options.uids = &uids_;
    runner_ = std::make_unique<ContainerRunner>(*containers_, policy_, options);
    runner_->set_pool(pool_.get());
    job_ = JobSpec{};
    job_.id = "job-1";
    job_.language = {"python", "coderunner/python:3.11", "main.py", {"python3", "{file}"}, true, "",
                     {}};
    job_.code = "print(1)";
  }
  void Clear() {
    if (pool_) pool_->Stop();
    runner_.reset();
    pool_.reset();
    containers_.reset();
    engine_.reset();
    if (!root_.empty()) std::filesystem::remove_all(root_);
    root_.clear();
  }

  std::string root_;
  std::unique_ptr<testutil::ScriptedEngine> engine_;
  std::unique_ptr<engine::ContainerClient> containers_;
  ContainerPolicy policy_{Settings(), "inst-1"};
  UidPool uids_{kDefaultFirstJobUid, 8};
  MetricsRegistry metrics_;
  std::unique_ptr<WarmPool> pool_;
  std::unique_ptr<ContainerRunner> runner_;
  JobSpec job_;
};

TEST_F(ContainerRunnerPoolTest, EligibleJobRunsInTheWarmContainer) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    std::string stdin_data;
    int exit_code;
    RunStatus status;
    std::string stdin_choice;  // The go message's first field.
    std::string args_fields;   // What follows the mode and its NUL.
  };
  const std::vector<Case> cases = {
      {"exit 0", {}, "", 0, RunStatus::kSucceeded, "-", ""},
      {"exit 3", {}, "", 3, RunStatus::kFailed, "-", ""},
      {"args and stdin",
       {"a", "b c"},
       "in",
       0,
       RunStatus::kSucceeded,
       "stdin",
       std::string("a\0b c\0", 6)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Reset();
    job_.args = c.args;
    job_.stdin_data = c.stdin_data;
    pool_->Start({job_});
    ASSERT_TRUE(Eventually([&] { return pool_->GetStats().idle == 1; }));
    // Taken before the job runs: the pool refills in a new slot after it.
    const std::string fifo = OnlySlotFifo(root_ + "/pool");
    ASSERT_FALSE(fifo.empty());

    // coderunner-init: waits for "go", then writes the job's output and
    // its end markers with the go message's nonce.
    std::optional<std::string> go;
    std::string nonce;
    std::thread init([&] {
      go = ReadGo(fifo);
      if (!go) return;
      size_t a = go->find('\0');
      size_t b = a == std::string::npos ? a : go->find('\0', a + 1);
      if (b == std::string::npos) return;
      nonce = go->substr(a + 1, b - a - 1);
      engine_->PushAttach(MuxFrame(1, "out\n" + StdoutEndMarker(nonce)) +
                          MuxFrame(2, "err\n" + Trailer(nonce, c.exit_code)));
    });
    auto r = runner_->Run(job_);
    init.join();

    ASSERT_TRUE(go.has_value()) << "no go message";
    ASSERT_FALSE(nonce.empty());
    EXPECT_EQ(*go, c.stdin_choice + std::string(1, '\0') + nonce + std::string(1, '\0') + "once" +
                       std::string(1, '\0') + c.args_fields);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->status, c.status) << r->error.ToString();
    EXPECT_EQ(r->exit_code, c.exit_code);
    EXPECT_EQ(r->stdout_data, "out\n");
    EXPECT_EQ(r->stderr_data, "err\n");
    EXPECT_EQ(r->image_digest, "sha256:feed");
    // The job made no container of its own: every create is the pool's
    // (the one it took, and any refill since).
    for (const std::string& request : engine_->Seen()) {
      if (request.rfind("POST /containers/create", 0) != 0) continue;
      EXPECT_EQ(request.rfind(kPoolCreate, 0), 0u) << request;
    }
    EXPECT_EQ(pool_->GetStats().hits, 1u);
    // The used container is removed (in the background).
    EXPECT_TRUE(engine_->WaitForRequest("DELETE", kRemove));
  }
}

// A series' trailer: the case's exit code and whether init cleared up
// after it (reusable).
std::string SeriesTrailer(const std::string& nonce, int exit_code, bool reusable) {
  return "\x1e"
         "coderunner-init {\"exit_code\":" +
         std::to_string(exit_code) +
         ",\"wall_us\":9000,\"cpu_us\":4000,\"reusable\":" + (reusable ? "1" : "0") +
         ",\"eof\":\"" + nonce + "\"}\n";
}

TEST_F(ContainerRunnerPoolTest, ASeriesRunsItsCasesInOneContainerWhileInitSaysItMay) {
  struct Row {
    const char* name;
    std::vector<bool> reusable;  // What init says after each case it runs.
    size_t go_on_until;          // go_on answers false after this many cases.
    size_t ran;
    std::vector<std::string> modes;  // Of each go message sent.
  };
  const Row rows[] = {
      {"every case", {true, true, false}, 3, 3, {"more", "more", "last"}},
      {"init could not clear after the first", {false}, 3, 1, {"more"}},
      {"the caller stops after the second", {true, true}, 2, 2, {"more", "more"}},
  };
  const std::vector<std::string> stdins = {"a\n", "", "c\n"};
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    Reset();
    pool_->Start({job_});
    ASSERT_TRUE(Eventually([&] { return pool_->GetStats().idle == 1; }));
    const std::string fifo = OnlySlotFifo(root_ + "/pool");
    ASSERT_FALSE(fifo.empty());
    const std::string stdin_file =
        std::filesystem::path(fifo).parent_path().string() + "/" + std::string(kStdinFile);
    // coderunner-init: each go, then the case's stdin echoed, its markers.
    std::vector<std::string> modes, seen_stdin;
    std::thread init([&] {
      for (size_t i = 0; i < row.reusable.size(); ++i) {
        std::optional<std::string> go = ReadGo(fifo);
        if (!go) return;
        size_t a = go->find('\0');
        size_t b = go->find('\0', a + 1);
        size_t m = go->find('\0', b + 1);
        const std::string nonce = go->substr(a + 1, b - a - 1);
        modes.push_back(go->substr(b + 1, m - b - 1));
        std::ifstream in(stdin_file);
        seen_stdin.push_back(std::string(std::istreambuf_iterator<char>(in), {}));
        engine_->PushAttach(
            MuxFrame(1, "case " + std::to_string(i + 1) + "\n" + StdoutEndMarker(nonce)) +
            MuxFrame(2, SeriesTrailer(nonce, 0, row.reusable[i])));
      }
    });
    std::vector<SeriesCase> cases;
    for (size_t i = 0; i < 3; ++i) {
      SeriesCase c;
      c.id = "job-1-case-" + std::to_string(i + 1);
      c.stdin_data = stdins[i];
      c.limits = job_.limits;
      cases.push_back(c);
    }
    std::vector<RunResult> results;
    size_t ran = runner_->RunSeries(job_, cases, {}, [&](RunResult r) {
      results.push_back(std::move(r));
      return results.size() < row.go_on_until;
    });
    init.join();
    EXPECT_EQ(ran, row.ran);
    EXPECT_EQ(modes, row.modes);
    ASSERT_EQ(results.size(), row.ran);
    for (size_t i = 0; i < results.size(); ++i) {
      EXPECT_EQ(results[i].status, RunStatus::kSucceeded) << results[i].error.ToString();
      EXPECT_EQ(results[i].stdout_data, "case " + std::to_string(i + 1) + "\n");
      // Each case's own stdin, never an earlier case's.
      EXPECT_EQ(seen_stdin[i], stdins[i]);
    }
    // One container for the whole series: no create but the pool's.
    for (const std::string& request : engine_->Seen()) {
      if (request.rfind("POST /containers/create", 0) != 0) continue;
      EXPECT_EQ(request.rfind(kPoolCreate, 0), 0u) << request;
    }
    EXPECT_EQ(pool_->GetStats().hits, 1u);
    EXPECT_TRUE(engine_->WaitForRequest("DELETE", kRemove));
  }
}

}  // namespace
}  // namespace coderunner::isolation
