// JobRequest: how an accepted request is stored, hashed and turned back
// into a runnable job.
#ifndef CODERUNNER_JOBS_JOB_REQUEST_H_
#define CODERUNNER_JOBS_JOB_REQUEST_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/judge/submission_judge.h"
#include "coderunner/store/job_record.h"
#include "coderunner/wire/execute_request.h"

namespace coderunner::jobs {

// Options that ride along with a request but are not part of what runs.
struct SubmitOptions {
  std::string callback_url;  // "" for none.
  bool use_cache = true;     // false: never read the cache (still written).
  // The caller is waiting synchronously (/v1/execute): if the engine is
  // unreachable, fail at once (503) instead of waiting for it to return.
  bool fail_fast = false;
};

// The stored form of a request: {"request": <original body object>,
// "pin_image": "sha256:..."?, "fail_fast": true?, "tier": "<name>"?}.
// Replays pin the image to the digest the original run used. `tier` is the
// name of the tier the request was accepted under ("" for none), so that the
// job runs within the same bounds and runtime it was checked against.
// `body_json` must be valid JSON (it was parsed before).
std::string EncodeStoredRequest(const std::string& body_json, const std::string& pin_image,
                                bool fail_fast, const std::string& tier);
// A replay's packages are pinned too: "pin_packages", the original run's
// lock (its result's packages.python: [{name, version, sha256}]), which the
// replay installs exactly, by hash.
// EncodeStoredRequest for a body already parsed (a wire::JobSubmission's).
std::string EncodeStoredBody(const nlohmann::json& body, const std::string& pin_image,
                             bool fail_fast, const std::string& tier,
                             const nlohmann::json& pin_packages = nullptr);

// A stored request (EncodeStoredRequest's envelope), read in one parse.
struct StoredRequest {
  nlohmann::json body;    // The original request body object.
  std::string pin_image;  // "" if none.
  bool fail_fast = false;
  std::string tier;  // "" if none.
  // The lock a replay installs exactly (an array; null if none).
  nlohmann::json pin_packages;
};

// Reads `stored`; fields of the wrong type are taken as absent.
// Internal "corrupt_record" if it is not an object holding "request".
// Pure; thread-safe.
StatusOr<StoredRequest> ParseStoredRequest(const std::string& stored);

struct RunnableJob {
  isolation::JobSpec spec;
  wire::OutputEncoding encoding = wire::OutputEncoding::kUtf8;
  bool fail_fast = false;  // See SubmitOptions::fail_fast.
  // Set for a judged request ("cases"): `spec` is judged, not run once.
  std::optional<judge::JudgePlan> judge;
};

// The kind of a judged job's record (store::JobRecord::kind).
inline constexpr char kJudgeJobKind[] = "judge";

// Rebuilds the runnable job of `record` (parsing its stored request with
// today's config), under the tier named in the stored request, looked up in
// today's config; records stored without a tier (before tiers were recorded,
// or accepted without one) are rebuilt without a tier, against limits.max.
// A judged request's plan is rebuilt too (wire::BuildJudgePlan).
// Errors are those of ParseExecuteRequest/BuildJobSpec/BuildJudgePlan, and
// FailedPrecondition "unknown_tier" if the stored tier is no longer
// configured. Pure; thread-safe.
StatusOr<RunnableJob> JobSpecFromRecord(const store::JobRecord& record,
                                        const config::Config& config);

// The original request body of a stored request, and its pinned image ("" if
// none).
StatusOr<std::pair<std::string, std::string>> DecodeStoredRequest(const std::string& stored);

// Hex SHA-256 over stdin, args and files (paths and bytes), unambiguous.
std::string InputsSha256(const isolation::JobSpec& job);

// Result-cache key: hex SHA-256 over the tenant (a tenant is only ever
// answered with its own results: another tenant's hit would tell it that
// someone ran the same code, and would let it plant a result for others),
// language, image digest, code, stdin, args, files, the resolved limits, the
// job's runtime when it names one (a program may behave differently under
// gVisor, so a runc result never answers a runsc job) and the output
// encoding (it shapes the stored result). "" if `image_digest` is empty.
std::string CacheKey(const isolation::JobSpec& job, const std::string& tenant,
                     const std::string& image_digest, wire::OutputEncoding encoding);

// Splits the job-only fields ("callback_url", "cache") off a request body
// object, returning the body without them (what ParseExecuteRequest takes).
// A body that is not a JSON object within `max_depth` (ParseBoundedJson) is
// returned as it is, for ParseExecuteRequest to refuse. InvalidArgument for
// wrong types or a bad URL.
StatusOr<std::string> ExtractSubmitOptions(const std::string& body, bool allow_private_callbacks,
                                           int max_depth, SubmitOptions* options);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_REQUEST_H_
