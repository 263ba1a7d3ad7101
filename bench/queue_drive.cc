#include "queue_drive.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench_common.h"
#include "coderunner/store/job_record.h"

namespace bench {
namespace {

using coderunner::store::JobRecord;
using coderunner::store::JobStatus;
using coderunner::store::JobStore;

constexpr int kSeedBatch = 500;
constexpr int kTenants = 4;
constexpr int64_t kLeaseMs = 15000;
constexpr int kMaxFailures = 100;

// A python print(1+1) job's stored request (jobs::EncodeStoredRequest's
// envelope, as the service keeps it).
constexpr const char* kRequestJson =
    R"j({"request":{"language":"python","code":"print(1+1)","stdin":"","args":[],"files":[],)j"
    R"j("env":{},"limits":{"wall_ms":10000,"memory_mb":256,"cpus":1.0,"pids":64},)j"
    R"j("cache":false},"callback_secret":""})j";
constexpr const char* kLimitsJson = R"({"wall_ms":10000,"memory_mb":256,"cpus":1.0,"pids":64})";
constexpr const char* kCodeSha256 =
    "6f1ed002ab5595859014ebf0951522d9f1b14b8d5e8b4bfbd2c4f8a2c0e3e3d2";
constexpr const char* kInputsSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
// The /v1/execute response body of a print(1+1) run.
constexpr const char* kResultJson =
    R"({"status":"succeeded","exit_code":0,"stdout":"2\n","stderr":"","duration_ms":41,)"
    R"("memory_peak_bytes":7340032,"truncated":false,"cached":false})";
constexpr const char* kImageDigest =
    "sha256:9b2c0f4e5d1a7c3b8e6f0a2d4c6b8e0f1a3c5e7d9b1f3a5c7e9d0b2f4a6c8e0d";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string IdOf(uint32_t tag, int i) {
  char buf[40];
  snprintf(buf, sizeof buf, "job-%08x%016llx", tag, static_cast<unsigned long long>(i));
  return buf;
}

JobRecord RecordOf(uint32_t tag, int i, int64_t base_ms) {
  JobRecord r;
  r.id = IdOf(tag, i);
  r.tenant = "tenant-" + std::to_string(i % kTenants);
  r.language = "python";
  r.request_json = kRequestJson;
  r.code_sha256 = kCodeSha256;
  r.inputs_sha256 = kInputsSha256;
  r.image = "coderunner/python:3.11";
  r.limits_json = kLimitsJson;
  r.created_at_ms = base_ms + i;
  r.transitions = {{JobStatus::kQueued, r.created_at_ms}};
  return r;
}

void Fail(Tally& t, const std::string& what) {
  if (t.failures++ == 0) t.first_error = what;
}

template <typename T>
bool WriteVec(FILE* f, const std::vector<T>& v) {
  uint64_t n = v.size();
  return fwrite(&n, sizeof n, 1, f) == 1 && fwrite(v.data(), sizeof(T), n, f) == n;
}

template <typename T>
bool ReadVec(FILE* f, std::vector<T>& v) {
  uint64_t n = 0;
  if (fread(&n, sizeof n, 1, f) != 1) return false;
  v.resize(n);
  return fread(v.data(), sizeof(T), n, f) == n;
}

// "" when `r` ended succeeded once by a claim, else why not.
std::string WhyNotOnce(const JobRecord& r) {
  if (r.status != JobStatus::kSucceeded) {
    return "status " + std::string(coderunner::store::JobStatusName(r.status));
  }
  if (r.attempt != 1) return "attempt " + std::to_string(r.attempt);
  const std::vector<JobStatus> want{JobStatus::kQueued, JobStatus::kRunning, JobStatus::kSucceeded};
  std::vector<JobStatus> got;
  for (const auto& t : r.transitions) got.push_back(t.status);
  if (got != want) return std::to_string(got.size()) + " transitions, not queued/running/succeeded";
  if (r.owner.empty()) return "no owner";
  return "";
}

}  // namespace

void Tally::Merge(const Tally& other) {
  done_ns.insert(done_ns.end(), other.done_ns.begin(), other.done_ns.end());
  claim_ms.insert(claim_ms.end(), other.claim_ms.begin(), other.claim_ms.end());
  complete_ms.insert(complete_ms.end(), other.complete_ms.begin(), other.complete_ms.end());
  if (failures == 0 && other.failures > 0) first_error = other.first_error;
  failures += other.failures;
}

bool Tally::Write(FILE* f) const {
  uint64_t n = first_error.size();
  return WriteVec(f, done_ns) && WriteVec(f, claim_ms) && WriteVec(f, complete_ms) &&
         fwrite(&failures, sizeof failures, 1, f) == 1 && fwrite(&n, sizeof n, 1, f) == 1 &&
         fwrite(first_error.data(), 1, n, f) == n;
}

bool Tally::Read(FILE* f) {
  uint64_t n = 0;
  if (!ReadVec(f, done_ns) || !ReadVec(f, claim_ms) || !ReadVec(f, complete_ms) ||
      fread(&failures, sizeof failures, 1, f) != 1 || fread(&n, sizeof n, 1, f) != 1) {
    return false;
  }
  first_error.resize(n);
  return fread(first_error.data(), 1, n, f) == n;
}

std::string Seed(JobStore& store, uint32_t tag, int count, int64_t base_ms) {
  for (int begin = 0; begin < count; begin += kSeedBatch) {
    std::vector<JobRecord> batch;
    for (int i = begin; i < std::min(count, begin + kSeedBatch); ++i) {
      batch.push_back(RecordOf(tag, i, base_ms));
    }
    auto s = store.Insert(batch);
    if (!s.ok()) return "seed: " + s.message();
  }
  return "";
}

std::vector<std::string> SeededIds(uint32_t tag, int count) {
  std::vector<std::string> ids;
  for (int i = 0; i < count; ++i) ids.push_back(IdOf(tag, i));
  return ids;
}

void Drive(JobStore& store, const std::string& node, int batch, Tally& tally) {
  while (tally.failures < kMaxFailures) {
    auto t0 = Clock::now();
    auto claimed = store.Claim(node, batch, NowMs(), kLeaseMs);
    tally.claim_ms.push_back(Ms(Clock::now() - t0));
    if (!claimed.ok()) {
      Fail(tally, "claim: " + claimed.status().message());
      continue;
    }
    if (claimed->empty()) return;
    for (const JobRecord& job : *claimed) {
      auto t1 = Clock::now();
      auto s =
          store.Transition(job.id, JobStatus::kSucceeded, NowMs(), kResultJson, kImageDigest, node);
      auto t2 = Clock::now();
      tally.complete_ms.push_back(Ms(t2 - t1));
      if (s.ok()) {
        tally.done_ns.push_back(
            std::chrono::duration_cast<std::chrono::nanoseconds>(t2.time_since_epoch()).count());
      } else {
        Fail(tally, "complete " + job.id + ": " + s.message());
      }
    }
  }
}

Figures Summarize(const Tally& tally) {
  Figures f;
  f.completed = static_cast<int64_t>(tally.done_ns.size());
  std::vector<int64_t> done = tally.done_ns;
  std::sort(done.begin(), done.end());
  const size_t lo = done.size() / 10, hi = done.size() * 9 / 10;
  if (hi > lo + 1 && done[hi - 1] > done[lo]) {
    f.cycles_per_s = static_cast<double>(hi - 1 - lo) / ((done[hi - 1] - done[lo]) / 1e9);
  }
  f.claim_p50 = Percentile(tally.claim_ms, 0.5);
  f.claim_p99 = Percentile(tally.claim_ms, 0.99);
  f.complete_p50 = Percentile(tally.complete_ms, 0.5);
  f.complete_p99 = Percentile(tally.complete_ms, 0.99);
  return f;
}

std::string CheckOnceEach(JobStore& store, const std::vector<std::string>& ids) {
  int64_t once = 0;
  std::map<std::string, int64_t> wrong;
  std::string first_bad;
  for (const std::string& id : ids) {
    auto r = store.Get(id);
    std::string why = r.ok() ? WhyNotOnce(*r) : "get: " + r.status().message();
    if (why.empty()) {
      ++once;
      continue;
    }
    if (first_bad.empty()) first_bad = id + " (" + why + ")";
    ++wrong[why];
  }
  if (wrong.empty()) return "";
  std::string out = std::to_string(once) + " of " + std::to_string(ids.size()) +
                    " succeeded once; first bad: " + first_bad;
  return out;
}

}  // namespace bench
