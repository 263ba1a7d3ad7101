// /output and artifacts on a real engine: what a job leaves in its per-job
// /output comes back listed with size, disk bytes and SHA-256 and
// downloadable, within caps enforced while it runs (in allocated bytes); and
// every hostile program aimed at the service's handling of those files
// (tests/hostile/output_*) or at the host's disk (tests/hostile/disk_*) is
// contained.
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "coderunner/common/sha256.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using OutputTest = EngineTest;

std::set<std::string> Paths(const nlohmann::json& list) {
  std::set<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& e : list) out.insert(e.value("path", ""));
  return out;
}

std::set<std::string> Reasons(const nlohmann::json& r) {
  std::set<std::string> out;
  if (!r.contains("artifacts_skipped")) return out;
  for (const auto& e : r["artifacts_skipped"]) out.insert(e.value("reason", ""));
  return out;
}

int64_t TotalBytes(const nlohmann::json& artifacts) {
  int64_t total = 0;
  for (const auto& a : artifacts) total += a.value("size", int64_t{0});
  return total;
}

std::string ErrorCode(const nlohmann::json& r) {
  return r.contains("error") && r["error"].is_object() ? r["error"].value("code", "") : "";
}

TEST_F(OutputTest, ArtifactsAreListedHashedAndDownloadable) {
  nlohmann::json r = RunUncached("python",
                                 "import os\n"
                                 "os.makedirs('/output/sub')\n"
                                 "open('/output/report.txt','w').write('hello')\n"
                                 "open('/output/sub/data.bin','wb').write(bytes(range(256)))\n"
                                 "print('done')\n");
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  std::string bin;
  for (int i = 0; i < 256; ++i) bin.push_back(static_cast<char>(i));
  std::string id = r["id"];
  // disk_bytes: what the host's disk holds for each (a block, on ext4).
  auto disk = [&](const std::string& path) {
    struct stat st;
    EXPECT_EQ(lstat((server_->artifacts_dir() + "/" + id + "/" + path).c_str(), &st), 0);
    EXPECT_GT(st.st_blocks, 0) << path;
    return static_cast<int64_t>(st.st_blocks) * 512;
  };
  nlohmann::json want = nlohmann::json::array({{{"path", "report.txt"},
                                                {"size", 5},
                                                {"disk_bytes", disk("report.txt")},
                                                {"sha256", Sha256Hex("hello")}},
                                               {{"path", "sub/data.bin"},
                                                {"size", 256},
                                                {"disk_bytes", disk("sub/data.bin")},
                                                {"sha256", Sha256Hex(bin)}}});
  EXPECT_EQ(r["artifacts"], want);
  EXPECT_FALSE(r.contains("artifacts_skipped")) << r.dump();

  EXPECT_EQ(server_->Get("/v1/jobs/" + id + "/artifacts/report.txt").body, "hello");
  EXPECT_EQ(server_->Get("/v1/jobs/" + id + "/artifacts/sub/data.bin").body, bin);
  // The stored record lists them too.
  EXPECT_EQ(server_->Get("/v1/jobs/" + id).json["result"]["artifacts"], want);
  for (const char* bad :
       {"missing.txt", "sub", "%2e%2e/%2e%2e/etc/passwd", "sub/..%2Freport.txt", "/etc/passwd"}) {
    SCOPED_TRACE(bad);
    HttpAnswer miss = server_->Get("/v1/jobs/" + id + "/artifacts/" + bad);
    EXPECT_EQ(miss.status, 404) << miss.body;
  }
  // On the host the files are the service's now: root's alone, neither
  // writable by the job's uid nor readable by any other host user.
  struct stat st;
  std::string host = server_->artifacts_dir() + "/" + id + "/report.txt";
  ASSERT_EQ(lstat(host.c_str(), &st), 0) << host;
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(OutputTest, AJobThatWritesNothingKeepsNoDirectory) {
  nlohmann::json r = RunUncached("python", "print(1)");
  EXPECT_EQ(r["artifacts"], nlohmann::json::array());
  std::string id = r["id"];
  EXPECT_FALSE(std::filesystem::exists(server_->artifacts_dir() + "/" + id));
}

TEST_F(OutputTest, AJobPastItsDeadlineStillLeavesItsArtifacts) {
  // At the deadline coderunner-init stops the job and checks /output itself
  // (SIGUSR1 from the service) instead of dying with it.
  nlohmann::json r =
      RunUncached("bash", "echo partial > /output/partial.txt; trap '' TERM; sleep 60",
                  {{"limits", {{"timeout_ms", 1500}}}});
  EXPECT_EQ(r["status"], "timeout") << r.dump();
  EXPECT_EQ(r["signal"], "SIGKILL");
  EXPECT_EQ(Paths(r["artifacts"]), std::set<std::string>{"partial.txt"}) << r.dump();
  std::string id = r["id"];
  EXPECT_EQ(server_->Get("/v1/jobs/" + id + "/artifacts/partial.txt").body, "partial\n");
}

TEST_F(OutputTest, ArtifactsOfCachedAnswersAreNeverShared) {
  // A result with artifacts is not cached: the second run makes its own.
  const std::string code = "open('/output/x','w').write('x')\nprint('same')\n";
  HttpAnswer first = server_->Execute("python", code);
  HttpAnswer second = server_->Execute("python", code);
  EXPECT_EQ(second.json["cached"], false) << second.body;
  std::string id = second.json["id"];
  EXPECT_EQ(server_->Get("/v1/jobs/" + id + "/artifacts/x").body, "x");
  EXPECT_NE(first.json["id"], second.json["id"]);
}

struct OutputAttack {
  const char* file;
  const char* language;
  std::set<std::string> statuses;   // Acceptable end statuses.
  std::string error_code;           // Required error.code ("" = none required).
  std::set<std::string> reasons;    // Reasons that must be among artifacts_skipped.
  std::set<std::string> artifacts;  // Exactly these paths are kept (nullopt-like: "*" = any).
  std::vector<std::string> must_have;
  std::vector<std::string> must_not;
};

std::vector<OutputAttack> OutputAttacks() {
  const std::set<std::string> any = {"*"};
  return {
      {"output_fill.py", "python", {"failed"}, "artifacts_too_large", {}, any, {}, {}},
      {"output_symlinks.sh", "bash", {"succeeded"}, "", {"symlink"}, {"real.txt"}, {"planted"}, {}},
      {"output_hardlinks.py",
       "python",
       {"succeeded"},
       "",
       {"hardlink"},
       {},
       {"denied link /etc/passwd", "denied link /workspace/main.py", "inner link made"},
       {"LINKED"}},
      {"output_special_files.py",
       "python",
       {"succeeded"},
       "",
       {"special_file"},
       {"normal.txt"},
       {"denied mknod", "planted"},
       {"MADE device"}},
      {"output_many_files.py", "python", {"failed"}, "too_many_artifacts", {}, any, {}, {}},
      {"output_deep_tree.py", "python", {"failed"}, "output_too_deep", {}, any, {}, {}},
      {"output_hide_unreadable.sh", "bash", {"failed"}, "artifacts_too_large", {}, any, {}, {}},
      {"output_escape_via_rename.py",
       "python",
       {"succeeded"},
       "",
       {},
       {"x.txt"},
       {"denied rename /workspace/x.txt", "denied rename /output"},
       {"MOVED"}},
  };
}

TEST_F(OutputTest, EveryOutputAttackIsContainedAndTheNextJobRuns) {
  struct stat shadow_before, passwd_before;
  ASSERT_EQ(stat("/etc/shadow", &shadow_before), 0);
  ASSERT_EQ(stat("/etc/passwd", &passwd_before), 0);
  for (const OutputAttack& a : OutputAttacks()) {
    SCOPED_TRACE(a.file);
    auto r = RunHostile(a.language, a.file, {{"limits", {{"timeout_ms", 30000}}}});
    ASSERT_TRUE(r.is_object());
    std::string status = r["status"];
    EXPECT_TRUE(a.statuses.count(status))
        << "status " << status << ": " << r.dump().substr(0, 3000);
    if (!a.error_code.empty()) {
      EXPECT_EQ(ErrorCode(r), a.error_code) << r["error"].dump();
    }
    std::set<std::string> reasons = Reasons(r);
    for (const auto& reason : a.reasons) {
      // Under gVisor a FIFO or socket made on a bind mount lives in the
      // sandbox's own file system and never reaches the host directory:
      // there is nothing to skip, which is containment too.
      if (reason == "special_file" && RuntimeUnderTest() == "runsc") continue;
      EXPECT_TRUE(reasons.count(reason)) << reason;
    }
    if (!a.artifacts.count("*")) {
      EXPECT_EQ(Paths(r["artifacts"]), a.artifacts) << r.dump().substr(0, 3000);
    }
    // Whatever happened, what is kept is within every cap.
    EXPECT_LE(TotalBytes(r["artifacts"]), 100 << 20);
    EXPECT_LE(r["artifacts"].size(), 1000u);
    for (const auto& art : r["artifacts"]) EXPECT_LE(art["size"].get<int64_t>(), 10 << 20);
    std::string out = r["stdout"];
    for (const auto& s : a.must_have) EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
    for (const auto& s : a.must_not) EXPECT_EQ(out.find(s), std::string::npos) << s << "\n" << out;
    // Nothing listed under a skipped name is ever served.
    std::string id = r["id"];
    for (const char* p : {"shadow", "etcdir/passwd", "d/passwd", "root/etc/passwd", "fifo", "sock",
                          "a.txt", "b.txt", "hidden/f1"}) {
      if (Paths(r["artifacts"]).count(p)) continue;
      EXPECT_EQ(server_->Get("/v1/jobs/" + id + "/artifacts/" + p).status, 404) << p;
    }
    ExpectNormalJobStillWorks();
  }
  // Symlinks were never followed to chown or touch host files.
  struct stat shadow_after, passwd_after;
  ASSERT_EQ(stat("/etc/shadow", &shadow_after), 0);
  ASSERT_EQ(stat("/etc/passwd", &passwd_after), 0);
  EXPECT_EQ(shadow_after.st_uid, shadow_before.st_uid);
  EXPECT_EQ(shadow_after.st_mode, shadow_before.st_mode);
  EXPECT_EQ(passwd_after.st_uid, passwd_before.st_uid);
  EXPECT_EQ(passwd_after.st_mode, passwd_before.st_mode);
  EXPECT_EQ(passwd_after.st_mtim.tv_sec, passwd_before.st_mtim.tv_sec);
}

TEST_F(OutputTest, OutputIsMountedNosuidNodev) {
  nlohmann::json r = RunHostile("python", "output_setuid_plant.py");
  ASSERT_EQ(r["status"], "succeeded") << r.dump(1);
  const std::string out = r["stdout"];
  // gVisor shows no mount flags inside the sandbox (statvfs says nothing),
  // so there init is told not to check; the host mount carries them.
  if (RuntimeUnderTest() != "runsc") {
    EXPECT_NE(out.find("nosuid=1 nodev=1"), std::string::npos) << out;
  }
  struct statvfs vfs;
  ASSERT_EQ(statvfs(server_->artifacts_dir().c_str(), &vfs), 0);
  EXPECT_EQ(vfs.f_flag & (ST_NOSUID | ST_NODEV), ST_NOSUID | ST_NODEV);
  // The planted program is kept as a plain 0600 artifact (root's alone), no setuid bit.
  struct stat st;
  std::string kept = server_->artifacts_dir() + "/" + r["id"].get<std::string>() + "/suid";
  ASSERT_EQ(lstat(kept.c_str(), &st), 0) << kept;
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, 0u);
}

// The disk attacks (tests/hostile/disk_*): the caps count what the host's
// disk holds (allocated blocks, a file at least its size), so whatever
// st_size says, what stays under artifacts.dir is within them.
struct DiskAttack {
  const char* file;
  const char* language;
  std::string error_code;              // "" = no bound broken (the filter refused the call).
  std::string not_kept;                // A file that must be gone ("" = none).
  std::vector<std::string> must_have;  // In stdout.
};

TEST_F(OutputTest, DiskAttacksStayWithinTheCapsInAllocatedBytes) {
  constexpr int64_t kFileCap = 10 << 20, kTotalCap = 100 << 20, kMaxEntries = 1000;
  const DiskAttack attacks[] = {
      {"disk_fallocate_keep_size.sh",
       "bash",
       "",
       "",
       {"fallocate failed: keep size mode is unsupported", "fallocate rc=1", "x size=0 blocks=0"}},
      {"disk_fallocate_extend.py",
       "python",
       "artifact_too_large",
       "extend.bin",
       {"fallocate mode=0 rc=-1 errno=95 (Operation not supported)"}},
      {"disk_sparse_file.py", "python", "artifact_too_large", "sparse.bin", {"errno=EFBIG"}},
      {"disk_truncate.sh", "bash", "artifact_too_large", "t.bin", {"truncate 3G rc=1"}},
      {"disk_grow_file.py", "python", "artifact_too_large", "grow.bin", {}},
      {"disk_small_files.py", "python", "too_many_artifacts", "", {}},
  };
  for (const DiskAttack& a : attacks) {
    SCOPED_TRACE(a.file);
    nlohmann::json r = RunHostile(a.language, a.file, {{"limits", {{"timeout_ms", 30000}}}});
    ASSERT_TRUE(r.is_object());
    const std::string out = r.value("stdout", "");
    EXPECT_EQ(r["status"], a.error_code.empty() ? "succeeded" : "failed") << r.dump(1);
    EXPECT_EQ(ErrorCode(r), a.error_code) << r["error"].dump();
    for (const auto& s : a.must_have) EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
    EXPECT_EQ(out.find("NOT STOPPED"), std::string::npos) << out;
    // On the host, as du counts it.
    const std::string dir = server_->artifacts_dir() + "/" + r["id"].get<std::string>();
    int64_t on_disk = DiskBytesBelow(dir);
    EXPECT_LE(on_disk, kTotalCap) << dir;
    int64_t listed_disk = 0, files_disk = 0, entries = 0;
    for (const auto& art : r["artifacts"]) {
      EXPECT_LE(art["size"].get<int64_t>(), kFileCap);
      EXPECT_LE(art["disk_bytes"].get<int64_t>(), kFileCap);
      listed_disk += art["disk_bytes"].get<int64_t>();
    }
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      struct stat st;
      ASSERT_EQ(lstat(it->path().c_str(), &st), 0);
      ++entries;
      if (!S_ISREG(st.st_mode)) continue;
      EXPECT_LE(st.st_size, kFileCap) << it->path();
      EXPECT_LE(static_cast<int64_t>(st.st_blocks) * 512, kFileCap) << it->path();
      files_disk += static_cast<int64_t>(st.st_blocks) * 512;
    }
    EXPECT_LE(entries, kMaxEntries);
    // The listing shows what the files hold on disk, not only their sizes.
    EXPECT_EQ(listed_disk, files_disk);
    if (!a.not_kept.empty()) {
      EXPECT_FALSE(Paths(r["artifacts"]).count(a.not_kept)) << r["artifacts"].dump();
      EXPECT_FALSE(std::filesystem::exists(dir + "/" + a.not_kept));
    }
    ExpectNormalJobStillWorks();
  }
}

}  // namespace
}  // namespace coderunner::testing
