// /output and artifacts on a real engine: what a job leaves in its per-job
// /output comes back listed with size and SHA-256 and downloadable, within
// caps enforced while it runs; and every hostile program aimed at the
// service's handling of those files (tests/hostile/output_*) is contained.
#include <sys/stat.h>

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
  nlohmann::json want = nlohmann::json::array(
      {{{"path", "report.txt"}, {"size", 5}, {"sha256", Sha256Hex("hello")}},
       {{"path", "sub/data.bin"}, {"size", 256}, {"sha256", Sha256Hex(bin)}}});
  EXPECT_EQ(r["artifacts"], want);
  EXPECT_FALSE(r.contains("artifacts_skipped")) << r.dump();
  std::string id = r["id"];

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
  // On the host the files are the service's now: root-owned, not writable
  // by the job's uid.
  struct stat st;
  std::string host = server_->artifacts_dir() + "/" + id + "/report.txt";
  ASSERT_EQ(lstat(host.c_str(), &st), 0) << host;
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
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

}  // namespace
}  // namespace coderunner::testing
