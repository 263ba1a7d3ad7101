// Retention by size on a real engine (issue 28, item 5): a tenant whose
// tier keeps 20 MiB of artifacts runs jobs that each keep 8 MiB. After each
// one, what the host's disk holds of the tenant's artifacts (counted as du
// does) stays within the bound, the oldest jobs answer 404 like expired
// ones, and the newest still download byte for byte. Another tenant's job
// is never touched.
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

constexpr const char* kSmallKey = "footprint-small-key-0123456789";  // tier small
constexpr const char* kOtherKey = "footprint-other-key-0123456789";  // tier free
constexpr int64_t kBound = 20 << 20;         // small's max_retained_artifact_bytes.
constexpr int64_t kArtifactBytes = 8 << 20;  // What each job keeps.
constexpr int kJobs = 5;
// Jobs that fit the bound together (8 MiB and a directory each).
constexpr int kKept = 2;

// What the host's disk holds for `dir` and everything below it, as du
// counts it; 0 once it is gone.
int64_t TreeBytes(const std::string& dir) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_blocks) * 512 + DiskBytesBelow(dir);
}

// A job that keeps one 8 MiB artifact, every byte `fill`.
nlohmann::json BlobJob(char fill) {
  return {{"language", "python"},
          {"code", "open('/output/blob.bin', 'wb').write(b'" + std::string(1, fill) + "' * " +
                       std::to_string(kArtifactBytes) + ")\nprint('kept')\n"},
          {"cache", false}};
}

class FootprintTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"acme", "small", kSmallKey}, {"globex", "free", kOtherKey}}) +
           "tiers:\n  small: {max_retained_artifact_bytes: " + std::to_string(kBound) +
           "}\n"
           "artifacts: {max_file_bytes: 10485760, max_total_bytes: 10485760}\n"
           "jobs: {cache_ttl_s: 0}\n";
  }

  // Runs BlobJob(`fill`) as the holder of `key`; the job's id.
  std::string RunBlob(const char* key, char fill) {
    HttpAnswer a = server_->Call("POST", "/v1/execute", key, BlobJob(fill).dump());
    EXPECT_EQ(a.status, 200) << a.body.substr(0, 2000);
    EXPECT_EQ(a.json.value("status", ""), "succeeded") << a.body.substr(0, 2000);
    return a.json.is_object() ? a.json.value("id", "") : "";
  }

  // Job `id`'s artifact comes back whole: 8 MiB of `fill`.
  void ExpectDownloads(const char* key, const std::string& id, char fill) {
    HttpAnswer a = server_->Call("GET", "/v1/jobs/" + id + "/artifacts/blob.bin", key);
    EXPECT_EQ(a.status, 200) << id;
    EXPECT_EQ(a.body.size(), static_cast<size_t>(kArtifactBytes)) << id;
    // Compared byte for byte, not hashed: SHA-256 of 8 MiB takes seconds
    // in the sanitizer build.
    EXPECT_TRUE(std::all_of(a.body.begin(), a.body.end(), [fill](char c) { return c == fill; }))
        << id;
  }

  // Job `id` is gone as an expired one is: record and artifact 404.
  void ExpectPurged(const char* key, const std::string& id) {
    EXPECT_EQ(server_->Call("GET", "/v1/jobs/" + id, key).status, 404) << id;
    EXPECT_EQ(server_->Call("GET", "/v1/jobs/" + id + "/artifacts/blob.bin", key).status, 404)
        << id;
  }
};

TEST_F(FootprintTest, ATenantsArtifactsStayWithinItsTierAndTheOldestGoFirst) {
  const std::string artifacts = server_->artifacts_dir();
  const std::string other = RunBlob(kOtherKey, 'z');
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    SCOPED_TRACE("after job " + std::to_string(i));
    const char fill = static_cast<char>('a' + i);
    ids.push_back(RunBlob(kSmallKey, fill));
    // The tenant's artifacts on the host, counted as du does, right after
    // the job answered: no job of the tenant runs now.
    int64_t held = 0;
    for (const std::string& id : ids) held += TreeBytes(artifacts + "/" + id);
    EXPECT_LE(held, kBound);
    EXPECT_GE(held, std::min(i + 1, kKept) * kArtifactBytes);
    for (int j = 0; j <= i; ++j) {
      if (j + kKept <= i) {
        ExpectPurged(kSmallKey, ids[j]);
        EXPECT_EQ(TreeBytes(artifacts + "/" + ids[j]), 0) << ids[j];
      } else {
        ExpectDownloads(kSmallKey, ids[j], static_cast<char>('a' + j));
      }
    }
  }
  // Another tenant's job, older than all of them, is untouched.
  ExpectDownloads(kOtherKey, other, 'z');
  EXPECT_NE(server_->Get("/metrics")
                .body.find("coderunner_footprint_purges_total{tier=\"small\"} " +
                           std::to_string(kJobs - kKept)),
            std::string::npos);
}

}  // namespace
}  // namespace coderunner::testing
