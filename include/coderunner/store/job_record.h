// JobRecord: the durable record of one job, from acceptance to its result.
#ifndef CODERUNNER_STORE_JOB_RECORD_H_
#define CODERUNNER_STORE_JOB_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coderunner::store {

// queued -> running -> succeeded | failed | timeout | oom | cancelled | error.
// queued may also go straight to cancelled or error; running may go back to
// queued once, when a crash interrupted it (recovery).
enum class JobStatus { kQueued, kRunning, kSucceeded, kFailed, kTimeout, kOom, kCancelled, kError };

// "queued", "running", "succeeded", ...
std::string_view JobStatusName(JobStatus status);
// Inverse of JobStatusName; nullopt for anything else.
std::optional<JobStatus> ParseJobStatus(std::string_view name);
// True for every status but queued and running.
bool IsTerminal(JobStatus status);

struct Transition {
  JobStatus status;
  int64_t at_ms;  // Unix epoch milliseconds.
};

// Plain data; copy freely.
struct JobRecord {
  std::string id;  // "job-<24 hex>".
  // "job" (code from the caller) or "intent" (Execute mode: the service
  // writes the code with a model; see intent/intent_pipeline.h).
  std::string kind = "job";
  std::string tenant = "default";  // Owner; every lookup is scoped by it.
  JobStatus status = JobStatus::kQueued;
  std::string language;
  // The accepted request, normalized JSON (code, stdin, args, files, limits,
  // ...), enough to run or replay the job. Secrets in it are NOT redacted: it
  // is the job's input, and replay must be exact.
  std::string request_json;
  std::string code_sha256;    // Hex SHA-256 of the code.
  std::string inputs_sha256;  // Hex SHA-256 over stdin, args and files.
  std::string cache_key;      // "" when the job may not use the cache.
  std::string image;          // Image name from config at acceptance.
  std::string image_digest;   // "sha256:..." actually used; "" until known.
  std::string limits_json;    // The resolved limits, JSON object.
  std::string callback_url;   // "" for none.
  std::string replay_of;      // Id of the job this one replays; "" for none.
  bool cached = false;        // The result came from the result cache.
  int attempt = 1;            // +1 at each re-queue (crash recovery, lost lease).
  int64_t created_at_ms = 0;
  int64_t started_at_ms = 0;            // 0 until running.
  int64_t finished_at_ms = 0;           // 0 until terminal.
  std::vector<Transition> transitions;  // Every status change, in order.
  // The result (the /v1/execute response body, stdout/stderr redacted),
  // JSON; "" until terminal.
  std::string result_json;
  // Intents only: {"intent","agent","stages","attempts","answer","error",
  // "usage"} as the pipeline last wrote it; "" for plain jobs and in lists.
  std::string progress_json;
  // The node that claimed the job (JobStore::Claim) and runs it under a
  // lease; "" for a job no node claimed (the single-node path) and once it
  // is queued again. Kept when the job ends (the node that finished it).
  std::string owner;
  // Unix epoch milliseconds until which `owner`'s claim holds (extended by
  // JobStore::RenewLeases); 0 when unowned.
  int64_t lease_expires_at_ms = 0;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_JOB_RECORD_H_
