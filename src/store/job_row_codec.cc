#include "job_row_codec.h"

#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "sqlite_error.h"

namespace coderunner::store {
namespace {

// The 1-based parameter of an insert that binds `column`.
constexpr int Param(JobColumn column) { return static_cast<int>(column) + 1; }

}  // namespace

StatusOr<std::string> TransitionsToJson(const std::vector<store::Transition>& transitions) {
  try {
    nlohmann::json array = nlohmann::json::array();
    for (const store::Transition& t : transitions) {
      array.push_back(
          {{"status", std::string(store::JobStatusName(t.status))}, {"at_ms", t.at_ms}});
    }
    return array.dump();
  } catch (const std::exception& e) {
    return InternalError(std::string("serializing transitions: ") + e.what(), kReasonStoreError);
  }
}

StatusOr<std::vector<store::Transition>> ParseTransitions(std::string_view text,
                                                          const std::string& id) {
  auto corrupt = [&id](std::string_view why) {
    return CorruptError("job " + id + ": stored transitions " + std::string(why));
  };
  try {
    nlohmann::json array = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (array.is_discarded()) return corrupt("are not JSON");
    if (!array.is_array()) return corrupt("are not an array");
    std::vector<store::Transition> transitions;
    transitions.reserve(array.size());
    for (const nlohmann::json& entry : array) {
      if (!entry.is_object()) return corrupt("have a non-object entry");
      auto status = entry.find("status");
      auto at_ms = entry.find("at_ms");
      if (status == entry.end() || !status->is_string() || at_ms == entry.end() ||
          !at_ms->is_number_integer()) {
        return corrupt("have an entry without status or at_ms");
      }
      std::optional<JobStatus> parsed =
          store::ParseJobStatus(status->get_ref<const std::string&>());
      if (!parsed) return corrupt("have an unknown status");
      transitions.push_back({*parsed, at_ms->get<int64_t>()});
    }
    return transitions;
  } catch (const std::exception& e) {
    return corrupt(e.what());
  }
}

void BindJob(ScopedStatement& insert, const store::JobRecord& job, std::string_view request_json,
             std::string_view callback_url, std::string_view transitions_json) {
  insert.Bind(Param(kColId), job.id);
  insert.Bind(Param(kColTenant), job.tenant);
  insert.Bind(Param(kColStatus), store::JobStatusName(job.status));
  insert.Bind(Param(kColLanguage), job.language);
  insert.Bind(Param(kColRequestJson), request_json);
  insert.Bind(Param(kColCodeSha256), job.code_sha256);
  insert.Bind(Param(kColInputsSha256), job.inputs_sha256);
  insert.Bind(Param(kColCacheKey), job.cache_key);
  insert.Bind(Param(kColImage), job.image);
  insert.Bind(Param(kColImageDigest), job.image_digest);
  insert.Bind(Param(kColLimitsJson), job.limits_json);
  insert.Bind(Param(kColCallbackUrl), callback_url);
  insert.Bind(Param(kColReplayOf), job.replay_of);
  insert.BindBool(Param(kColCached), job.cached);
  insert.Bind(Param(kColAttempt), static_cast<int64_t>(job.attempt));
  insert.Bind(Param(kColCreatedAtMs), job.created_at_ms);
  insert.Bind(Param(kColStartedAtMs), job.started_at_ms);
  insert.Bind(Param(kColFinishedAtMs), job.finished_at_ms);
  insert.Bind(Param(kColTransitions), transitions_json);
  insert.Bind(Param(kColResultJson), job.result_json);
  insert.Bind(Param(kColKind), job.kind);
  insert.Bind(Param(kColProgressJson), job.progress_json);
}

StatusOr<JobRecord> ReadJob(sqlite3_stmt* stmt) {
  JobRecord job;
  job.id = ColumnString(stmt, kColId);
  job.tenant = ColumnString(stmt, kColTenant);
  std::string status = ColumnString(stmt, kColStatus);
  std::optional<JobStatus> parsed = store::ParseJobStatus(status);
  if (!parsed) return CorruptError("job " + job.id + " has unknown status '" + status + "'");
  job.status = *parsed;
  job.language = ColumnString(stmt, kColLanguage);
  job.request_json = ColumnString(stmt, kColRequestJson);
  job.code_sha256 = ColumnString(stmt, kColCodeSha256);
  job.inputs_sha256 = ColumnString(stmt, kColInputsSha256);
  job.cache_key = ColumnString(stmt, kColCacheKey);
  job.image = ColumnString(stmt, kColImage);
  job.image_digest = ColumnString(stmt, kColImageDigest);
  job.limits_json = ColumnString(stmt, kColLimitsJson);
  job.callback_url = ColumnString(stmt, kColCallbackUrl);
  job.replay_of = ColumnString(stmt, kColReplayOf);
  job.cached = sqlite3_column_int64(stmt, kColCached) != 0;
  job.attempt = static_cast<int>(sqlite3_column_int64(stmt, kColAttempt));
  job.created_at_ms = sqlite3_column_int64(stmt, kColCreatedAtMs);
  job.started_at_ms = sqlite3_column_int64(stmt, kColStartedAtMs);
  job.finished_at_ms = sqlite3_column_int64(stmt, kColFinishedAtMs);
  CR_ASSIGN_OR_RETURN(job.transitions,
                      ParseTransitions(ColumnString(stmt, kColTransitions), job.id));
  job.result_json = ColumnString(stmt, kColResultJson);
  job.kind = ColumnString(stmt, kColKind);
  job.progress_json = ColumnString(stmt, kColProgressJson);
  return job;
}

StatusOr<std::vector<JobRecord>> ReadJobs(ScopedStatement& stmt, std::string_view what) {
  std::vector<JobRecord> jobs;
  while (true) {
    CR_ASSIGN_OR_RETURN(bool row, stmt.Step(what));
    if (!row) return jobs;
    CR_ASSIGN_OR_RETURN(JobRecord job, ReadJob(stmt.get()));
    jobs.push_back(std::move(job));
  }
}

}  // namespace coderunner::store
