// The bounds on /output hold without the job's cooperation (issue 28): a
// job hides a directory from its own uid, writes through descriptors it
// holds, unlinks what it writes, leaves a process behind in a sandbox, or
// goes after PID 1's limits and scheduling, and still nothing over a bound
// stays on the host's disk, during or after the run. Each attack is a file
// in tests/hostile/ saying what it does; `du` on the host is the judge.
// Also run under gVisor (integration-docker-runsc).
#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr const char* kAcme = "acme-key-0123456789";  // tier pro
// The default artifact caps (config/coderunner.yaml, artifacts.*).
constexpr int64_t kArtifactTotalCap = 100LL << 20;
constexpr int64_t kVolumeBytes = 1 << 20;
// What a job may write past a cap while the guard reacts to it: 8 MiB;
// under the sanitizers (the guard's walk several times slower, four
// tests at a time) 64 MiB: 36 MiB was measured there in one CI run.
int64_t ReactionBytes() { return (ServiceIsSanitized() ? 64LL : 8LL) << 20; }

// How many MiB a hostile program reported writing: it prints "WROTE <n>"
// after each MiB, so no such line means it was stopped inside the first.
int64_t MibWritten(const json& answer) {
  if (StdoutFields(answer).count("WROTE") == 0) return 0;
  return ReportedInt(answer, "WROTE");
}

std::string ErrorCode(const json& r) {
  return r.contains("error") && r["error"].is_object() ? r["error"].value("code", "") : "";
}

// Samples what a host directory holds (as du counts) from a thread of its
// own while a run goes on, and keeps the largest figure.
class PeakDisk {
 public:
  explicit PeakDisk(std::string dir) : dir_(std::move(dir)) {
    thread_ = std::thread([this] {
      while (!stop_) {
        peak_ = std::max<int64_t>(peak_, DiskBytesBelow(dir_));
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  ~PeakDisk() { Stop(); }
  int64_t Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return peak_;
  }

 private:
  std::string dir_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> peak_{0};
  std::thread thread_;
};

class GuardTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override { return ApiKeysYaml({{"acme", "pro", kAcme}}); }

  void TearDown() override {
    if (server_ && server_->started()) {
      HttpAnswer list = server_->Call("GET", "/v1/sandboxes", kAcme);
      if (list.json.is_object()) {
        for (const auto& s : list.json["sandboxes"]) {
          HttpAnswer deleted =
              server_->Call("DELETE", "/v1/sandboxes/" + s["id"].get<std::string>(), kAcme);
          EXPECT_EQ(deleted.status, 200) << deleted.body;
        }
      }
      std::error_code ec;
      std::filesystem::remove(server_->workspace_dir() + "/sandboxes", ec);
      HttpAnswer volumes = server_->Call("GET", "/v1/volumes", kAcme);
      if (volumes.json.is_object()) {
        for (const auto& v : volumes.json["volumes"]) {
          server_->Call("DELETE", "/v1/volumes/" + v["id"].get<std::string>(), kAcme);
        }
      }
    }
    EngineTest::TearDown();
  }

  // tests/hostile/<file> in Python as acme, never from the cache.
  json Run(const std::string& file) {
    json body = {{"language", "python"}, {"code", HostileProgram(file)}, {"cache", false}};
    HttpAnswer a = server_->Call("POST", "/v1/execute", kAcme, body.dump());
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json.value("cached", true), false);
    return a.json;
  }

  std::string CreateVolume(int64_t size) {
    HttpAnswer a = server_->Call("POST", "/v1/volumes", kAcme, json{{"size_bytes", size}}.dump());
    EXPECT_EQ(a.status, 201) << a.body;
    return a.json.is_object() ? a.json.value("id", "") : "";
  }

  json RunOnVolume(const std::string& file, const std::string& volume) {
    json body = {{"language", "python"},
                 {"code", HostileProgram(file)},
                 {"cache", false},
                 {"volume_id", volume}};
    HttpAnswer a = server_->Call("POST", "/v1/execute", kAcme, body.dump());
    EXPECT_EQ(a.status, 200) << a.body;
    return a.json;
  }

  std::string VolumeDir(const std::string& id) const { return server_->volumes_dir() + "/" + id; }
};

TEST_F(GuardTest, ArtifactsBelowADirectoryTheJobCannotSearchStayBounded) {
  PeakDisk peak(server_->artifacts_dir());
  json r = Run("output_hide_search.py");
  const int64_t most = peak.Stop();
  EXPECT_EQ(r["status"], "failed") << r.dump().substr(0, 2000);
  // One hidden file passed the 10 MiB per-file cap first.
  EXPECT_EQ(ErrorCode(r), "artifact_too_large") << r.dump().substr(0, 2000);
  EXPECT_EQ(r["signal"], "SIGKILL");
  EXPECT_LT(MibWritten(r), 160) << "the job was never stopped";
  // During the run the host holds the cap plus what the job writes while
  // the guard reacts: 1 MiB over it in the worst CI run measured (105.9 MB,
  // four tests at a time on two cores); the figure below is the peak.
  EXPECT_LE(most, kArtifactTotalCap + ReactionBytes())
      << "the host held more than the cap during the run";
  EXPECT_LE(DiskBytesBelow(server_->artifacts_dir()), kArtifactTotalCap);
  if (HasFailure()) std::printf("service log:\n%s\n", server_->log().c_str());
  std::printf("FIGURE guard_hidden_artifacts_peak_bytes %lld wrote_mib %lld\n",
              static_cast<long long>(most), static_cast<long long>(MibWritten(r)));
  EXPECT_EQ(Run("identity.py")["status"], "succeeded");
}

TEST_F(GuardTest, AVolumeWrittenBelowAHiddenDirectoryIsRolledBack) {
  const std::string id = CreateVolume(kVolumeBytes);
  PeakDisk peak(VolumeDir(id));
  json r = RunOnVolume("output_hide_search.py", id);
  const int64_t most = peak.Stop();
  EXPECT_EQ(r["status"], "failed") << r.dump().substr(0, 2000);
  EXPECT_EQ(ErrorCode(r), "volume_quota_exceeded") << r.dump().substr(0, 2000);
  EXPECT_LT(MibWritten(r), 160) << "the job was never stopped";
  // Rolled back: the volume holds what it held before (nothing), and the
  // next job on it sees none of the hidden files.
  EXPECT_LE(DiskBytesBelow(VolumeDir(id)), kVolumeBytes);
  HttpAnswer files = server_->Call("GET", "/v1/volumes/" + id + "/files", kAcme);
  EXPECT_EQ(files.json["files"], json::array()) << files.body;
  json next = RunOnVolume("identity.py", id);
  EXPECT_EQ(next["status"], "succeeded") << next.dump().substr(0, 1000);
  std::printf("FIGURE guard_hidden_volume_peak_bytes %lld\n", static_cast<long long>(most));
}

TEST_F(GuardTest, FilesWrittenAfterTheirNameIsGoneCountAgainstTheCaps) {
  PeakDisk peak(server_->artifacts_dir());
  json r = Run("output_unlinked_held.py");
  peak.Stop();
  EXPECT_EQ(r["status"], "failed") << r.dump().substr(0, 2000);
  // Each held file passes the per-file cap long before the total.
  EXPECT_EQ(ErrorCode(r), "artifact_too_large") << r.dump().substr(0, 2000);
  EXPECT_LT(MibWritten(r), 100) << "the unlinked files were never counted";
  EXPECT_EQ(Run("identity.py")["status"], "succeeded");
}

TEST_F(GuardTest, FilesMappedAfterTheirNameIsGoneCountAgainstTheCaps) {
  json r = Run("output_unlinked_mapped.py");
  EXPECT_EQ(r["status"], "failed") << r.dump().substr(0, 2000);
  // Each file is under the per-file cap; together they pass the total
  // (counted as mapped, before a byte is written: 240 MiB). How far the
  // job got before it was stopped is a figure: under gVisor its writes go
  // to the sandbox's memory first, and under load it takes the guard up to
  // a few hundred milliseconds to stop it.
  EXPECT_EQ(ErrorCode(r), "artifacts_too_large") << r.dump().substr(0, 2000);
  std::printf("FIGURE guard_mapped_orphans_wrote_mib %lld\n",
              static_cast<long long>(MibWritten(r)));
  EXPECT_EQ(Run("identity.py")["status"], "succeeded");
}

// init runs as the job's uid: every call that could change its limits or
// scheduling is refused when aimed at it, and works on the job itself.
TEST_F(GuardTest, Pid1sLimitsAndSchedulingAreOutOfTheJobsReach) {
  json r = Run("pid1_limits.py");
  EXPECT_EQ(r["status"], "succeeded") << r.dump().substr(0, 2000);
  auto got = StdoutFields(r);
  for (const char* name : {"prlimit_cpu_init", "prlimit_nofile_init", "sched_setaffinity_init",
                           "sched_setscheduler_init", "sched_setparam_init", "sched_setattr_init",
                           "setpriority_init", "ioprio_set_init", "setpriority_pgrp_init",
                           "setpriority_user", "ioprio_set_pgrp_init", "ioprio_set_user"}) {
    EXPECT_EQ(got[name], "EPERM") << name << "\n" << r.value("stdout", "");
  }
  // gVisor implements only some of these for any process.
  if (RuntimeUnderTest() != "runsc") {
    for (const char* name : {"prlimit_cpu_self", "prlimit_nofile_self", "sched_setaffinity_self",
                             "sched_setscheduler_self", "sched_setparam_self", "setpriority_self",
                             "ioprio_set_self"}) {
      EXPECT_EQ(got[name], "ok") << name << "\n" << r.value("stdout", "");
    }
  }
  EXPECT_EQ(got["init_limits"], RuntimeUnderTest() == "runsc" ? "unreadable" : "unchanged")
      << r.value("stdout", "");
  EXPECT_NE(r.value("stdout", "").find("\ndone\n"), std::string::npos) << r.dump();
}

// The attack of issue 28 that ended init in the middle of its walk:
// RLIMIT_CPU 0 on PID 1, then 3,000 files in a 1 MiB volume.
TEST_F(GuardTest, AVolumeStaysWithinItsQuotaWhenTheJobGoesAfterInit) {
  const std::string id = CreateVolume(kVolumeBytes);
  json r = RunOnVolume("volume_init_cpu_limit.py", id);
  EXPECT_EQ(r["status"], "failed") << r.dump().substr(0, 2000);
  EXPECT_NE(ErrorCode(r).rfind("volume_", 0), std::string::npos) << r.dump().substr(0, 2000);
  EXPECT_EQ(StdoutFields(r)["prlimit_cpu_init"], "EPERM") << r.value("stdout", "");
  EXPECT_LE(DiskBytesBelow(VolumeDir(id)), kVolumeBytes);
  HttpAnswer files = server_->Call("GET", "/v1/volumes/" + id + "/files", kAcme);
  EXPECT_EQ(files.json["files"], json::array()) << files.body.substr(0, 500);
}

// A process a call leaves behind writes between calls, below a directory
// hidden from its uid: the watch stops the container without waiting for
// a next call, /output is emptied, and the next call says so.
TEST_F(GuardTest, ASandboxsOutputStaysBoundedBetweenCalls) {
  if (RuntimeUnderTest() == "runsc") GTEST_SKIP() << "sandboxes do not run under gVisor (422)";
  HttpAnswer created = server_->Call("POST", "/v1/sandboxes", kAcme,
                                     json{{"language", "python"}, {"ttl_s", 300}}.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json["id"];
  const std::string out = server_->artifacts_dir() + "/sandboxes/" + id;
  const std::string leave_behind =
      "import os, time\n"
      "if os.fork() == 0:\n"
      "    os.setsid()\n"
      "    os.makedirs('/output/h')\n"
      "    fd = os.open('/output/h/f', os.O_WRONLY | os.O_CREAT, 0o600)\n"
      "    os.chmod('/output/h', 0o400)\n"
      "    for _ in range(200):\n"
      "        os.write(fd, b'b' * (1 << 20))\n"
      "        time.sleep(0.01)\n"
      "    time.sleep(60)\n"
      "print('left behind')\n";
  HttpAnswer call = server_->Call("POST", "/v1/sandboxes/" + id + "/execute", kAcme,
                                  json{{"code", leave_behind}}.dump());
  ASSERT_EQ(call.status, 200) << call.body;
  EXPECT_EQ(call.json["stdout"], "left behind\n") << call.body;
  // No call comes: the writer goes on until the watch stops it, which
  // empties /output. Until then, follow what the host holds.
  int64_t most = 0;
  bool grew = false;
  bool emptied = false;
  for (int i = 0; i < 30000 && !emptied; ++i) {
    const int64_t now = DiskBytesBelow(out);
    most = std::max(most, now);
    grew = grew || now > (1 << 20);
    emptied = grew && now == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(emptied) << "the writer left behind was never stopped; " << most << " bytes";
  EXPECT_LE(most, kArtifactTotalCap);
  HttpAnswer next = server_->Call("POST", "/v1/sandboxes/" + id + "/execute", kAcme,
                                  json{{"code", "print(2)"}}.dump());
  ASSERT_EQ(next.status, 200) << next.body;
  EXPECT_EQ(next.json["stdout"], "2\n") << next.body;
  EXPECT_EQ(next.json["state_lost"], true) << next.body;
  EXPECT_EQ(next.json.value("output_reset", false), true) << next.body;
  EXPECT_EQ(DiskBytesBelow(out), 0);
  std::printf("FIGURE guard_sandbox_between_calls_peak_bytes %lld\n", static_cast<long long>(most));
}

}  // namespace
}  // namespace coderunner::testing
