// Judge0 CE's submissions API in coderunner's terms (docs/judge0.md): a
// Judge0 submission becomes a /v1 job (judged against its
// expected_output when it has one), and a job record becomes a Judge0
// submission, with Judge0's language ids, status ids, field names and
// units (seconds, kilobytes). Pure functions; thread-safe.
#ifndef CODERUNNER_API_JUDGE0_API_H_
#define CODERUNNER_API_JUDGE0_API_H_

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/store/job_record.h"

namespace coderunner::api {

// The reason of a submission Judge0 would refuse with 422; the message is
// "<field>: <why>" and the answer Judge0's {"<field>": ["<why>"]}.
inline constexpr char kReasonJudge0Invalid[] = "judge0_invalid";

// Judge0's {"<field>": ["<why>"]} for a kReasonJudge0Invalid status.
nlohmann::json Judge0InvalidJson(const Status& status);

// A Judge0 submission (`base64`: its source_code, stdin and
// expected_output are base64) as the body of a /v1 job: its language from
// language_id, code, stdin, args (command_line_arguments, split at
// blanks), limits (cpu_time_limit and wall_time_limit in seconds,
// memory_limit in KB, max_processes_and_or_threads), and, with an
// expected_output, one case judged as Judge0 compares (trailing
// whitespace ignored). kReasonJudge0Invalid for a missing or unknown
// language_id, a missing source_code, bad base64, enable_network,
// additional_files, compiler_options and redirect_stderr_to_stdout (not
// available here), or a field of the wrong type.
StatusOr<nlohmann::json> Judge0ToJob(const nlohmann::json& submission, bool base64,
                                     const config::Config& config);

// The submission `record` is, as Judge0 answers it: `fields` (Judge0's
// names; empty: its default eight; "*": all), text fields base64 when
// `base64`.
nlohmann::json Judge0SubmissionJson(const store::JobRecord& record, bool base64,
                                    const std::set<std::string>& fields);

// The fields query parameter: "" the default, "*" every field, else a
// comma-separated list; kReasonJudge0Invalid naming an unknown field.
StatusOr<std::set<std::string>> Judge0Fields(const std::string& query);

// GET /languages: [{"id", "name"}] of each configured language Judge0 has
// an id for, named with this service's version of it.
nlohmann::json Judge0LanguagesJson(const config::Config& config);
// GET /languages/{id}: {"id","name","is_archived","source_file",
// "compile_cmd","run_cmd"}; NotFound for an id not served here.
StatusOr<nlohmann::json> Judge0LanguageJson(const config::Config& config, int id);
// GET /statuses: Judge0's fourteen statuses.
nlohmann::json Judge0StatusesJson();

}  // namespace coderunner::api

#endif  // CODERUNNER_API_JUDGE0_API_H_
