#include "coderunner/wire/job_json.h"

#include <time.h>

namespace coderunner::wire {

nlohmann::json Rfc3339(int64_t ms) {
  if (ms <= 0) return nullptr;
  time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char buf[96];
  snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
           tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
           static_cast<int>(ms % 1000));
  return std::string(buf);
}

nlohmann::json JobSummaryJson(const store::JobRecord& r) {
  nlohmann::json transitions = nlohmann::json::array();
  for (const auto& t : r.transitions) {
    transitions.push_back({{"status", store::JobStatusName(t.status)}, {"at", Rfc3339(t.at_ms)}});
  }
  nlohmann::json limits = nlohmann::json::parse(r.limits_json, nullptr, false);
  return {
      {"id", r.id},
      {"kind", r.kind.empty() ? std::string("job") : r.kind},
      {"status", store::JobStatusName(r.status)},
      {"language", r.language},
      {"created_at", Rfc3339(r.created_at_ms)},
      {"started_at", Rfc3339(r.started_at_ms)},
      {"finished_at", Rfc3339(r.finished_at_ms)},
      {"transitions", transitions},
      {"code_sha256", r.code_sha256},
      {"inputs_sha256", r.inputs_sha256},
      {"image", r.image},
      {"image_digest",
       r.image_digest.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.image_digest)},
      {"limits", limits.is_discarded() ? nlohmann::json(nullptr) : limits},
      {"cached", r.cached},
      {"attempt", r.attempt},
      {"replay_of", r.replay_of.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.replay_of)},
      {"callback_url",
       r.callback_url.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.callback_url)},
  };
}

std::string NotRunResultJson(const store::JobRecord& r, store::JobStatus status,
                             const nlohmann::json& error) {
  return nlohmann::json{{"id", r.id},
                        {"status", store::JobStatusName(status)},
                        {"exit_code", nullptr},
                        {"signal", nullptr},
                        {"stdout", ""},
                        {"stderr", ""},
                        {"stdout_truncated", false},
                        {"stderr_truncated", false},
                        {"language", r.language},
                        {"image", r.image},
                        {"image_digest", nullptr},
                        {"code_sha256", r.code_sha256},
                        {"cached", false},
                        {"artifacts", nlohmann::json::array()},
                        {"error", error}}
      .dump();
}

nlohmann::json JobToJson(const store::JobRecord& r) {
  nlohmann::json j = JobSummaryJson(r);
  nlohmann::json result = nlohmann::json::parse(r.result_json, nullptr, false);
  j["result"] = r.result_json.empty() || result.is_discarded() ? nlohmann::json(nullptr) : result;
  if (r.kind == "intent") {
    // The pipeline's own JSON: intent, agent, stages, attempts, answer,
    // error, usage; each becomes a top-level field of the record.
    nlohmann::json progress = nlohmann::json::parse(r.progress_json, nullptr, false);
    if (progress.is_object()) {
      for (auto& [key, value] : progress.items()) {
        if (!j.contains(key)) j[key] = value;
      }
    }
  }
  return j;
}

bool WriteJobJson(const store::JobRecord& r, const std::function<bool(std::string_view)>& write) {
  using nlohmann::json;
  // The stored result is the executor's own compact JSON object: passed
  // through as it is (not even validated: a parser holds a copy of each
  // string it reads). Anything else, and an intent (whose progress fields
  // are merged in), is rendered the general way.
  const std::string& result = r.result_json;
  bool pass_through = r.kind != "intent" && result.size() >= 2 && result.front() == '{' &&
                      result.back() == '}' && result.find_first_of("\r\n") == std::string::npos;
  if (!pass_through) {
    return write(JobToJson(r).dump(-1, ' ', false, json::error_handler_t::replace));
  }
  std::string head = JobSummaryJson(r).dump(-1, ' ', false, json::error_handler_t::replace);
  head.pop_back();  // The summary's closing brace: "result" comes first.
  head += ",\"result\":";
  return write(head) && write(result) && write("}");
}

}  // namespace coderunner::wire
