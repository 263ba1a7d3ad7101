#include "judge0_api.h"

#include <cstdio>
#include <ctime>
#include <sstream>
#include <vector>

#include "coderunner/common/base64.h"
#include "coderunner/common/utf8.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/wire/result_json.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// Judge0 CE's ids of the languages coderunner serves (its
// db/languages/active.rb), each with the name shown before the image.
struct Judge0Language {
  int id;
  const char* language;  // coderunner's name.
  const char* name;
};
constexpr Judge0Language kJudge0Languages[] = {
    {46, "bash", "Bash"},
    {50, "c", "C (GCC)"},
    {54, "cpp", "C++ (GCC)"},
    {60, "go", "Go"},
    {62, "java", "Java (OpenJDK)"},
    {63, "javascript", "JavaScript (Node.js)"},
    {71, "python", "Python"},
    {73, "rust", "Rust"},
    {74, "typescript", "TypeScript"},
};
// Judge0's older GCC versions of C and C++: submitted to today's.
constexpr std::pair<int, int> kJudge0OlderIds[] = {{48, 50}, {49, 50}, {52, 54}, {53, 54}};

// Judge0's statuses (docs/api/statuses_and_languages/get_statuses.md).
enum Judge0Status {
  kInQueue = 1,
  kProcessing = 2,
  kAccepted = 3,
  kWrongAnswer = 4,
  kTimeLimitExceeded = 5,
  kCompilationError = 6,
  kRuntimeSigsegv = 7,
  kRuntimeSigxfsz = 8,
  kRuntimeSigfpe = 9,
  kRuntimeSigabrt = 10,
  kRuntimeNzec = 11,
  kRuntimeOther = 12,
  kInternalError = 13,
};
constexpr const char* kStatusDescriptions[] = {
    "",
    "In Queue",
    "Processing",
    "Accepted",
    "Wrong Answer",
    "Time Limit Exceeded",
    "Compilation Error",
    "Runtime Error (SIGSEGV)",
    "Runtime Error (SIGXFSZ)",
    "Runtime Error (SIGFPE)",
    "Runtime Error (SIGABRT)",
    "Runtime Error (NZEC)",
    "Runtime Error (Other)",
    "Internal Error",
    "Exec Format Error",
};
constexpr int kLastStatus = 14;

// What Judge0 answers when asked for no fields in particular.
const std::set<std::string>& DefaultFields() {
  static const std::set<std::string> fields = {"stdout", "time",           "memory",  "stderr",
                                               "token",  "compile_output", "message", "status"};
  return fields;
}
const std::set<std::string>& AllFields() {
  static const std::set<std::string> fields = {
      "source_code", "language_id",    "stdin",      "expected_output", "stdout",
      "stderr",      "compile_output", "message",    "exit_code",       "exit_signal",
      "status",      "status_id",      "created_at", "finished_at",     "token",
      "time",        "wall_time",      "memory"};
  return fields;
}

Status Invalid(const std::string& field, const std::string& why) {
  return InvalidArgumentError(field + ": " + why, kReasonJudge0Invalid);
}

const Judge0Language* LanguageById(int id) {
  for (const auto& [older, now] : kJudge0OlderIds) {
    if (id == older) id = now;
  }
  for (const Judge0Language& l : kJudge0Languages) {
    if (l.id == id) return &l;
  }
  return nullptr;
}

const Judge0Language* LanguageByName(const std::string& name) {
  for (const Judge0Language& l : kJudge0Languages) {
    if (name == l.language) return &l;
  }
  return nullptr;
}

// A text field of the submission, decoded when `base64`; "" when absent.
StatusOr<std::string> Text(const json& s, const char* field, bool base64) {
  auto it = s.find(field);
  if (it == s.end() || it->is_null()) return std::string();
  if (!it->is_string()) return Invalid(field, "must be a string");
  if (!base64) return it->get<std::string>();
  std::string compact;
  for (char c : it->get<std::string>()) {
    if (c != '\n' && c != '\r') compact.push_back(c);  // Ruby's encode64 wraps lines.
  }
  StatusOr<std::string> decoded = Base64Decode(compact);
  if (!decoded.ok()) return Invalid(field, "is not valid base64");
  return decoded;
}

// A limit in Judge0's unit times `scale`, absent when null.
StatusOr<std::optional<int64_t>> LimitIn(const json& s, const char* field, double scale) {
  auto it = s.find(field);
  if (it == s.end() || it->is_null()) return std::optional<int64_t>();
  if (!it->is_number() || it->get<double>() <= 0) return Invalid(field, "must be a number above 0");
  return std::optional<int64_t>(static_cast<int64_t>(it->get<double>() * scale + 0.5));
}

Status RefuseUnavailable(const json& s) {
  for (const char* field : {"additional_files", "compiler_options"}) {
    auto it = s.find(field);
    if (it != s.end() && !it->is_null() && !(it->is_string() && it->get<std::string>().empty())) {
      return Invalid(field, "is not available on this service");
    }
  }
  for (const char* field : {"enable_network", "redirect_stderr_to_stdout"}) {
    auto it = s.find(field);
    if (it != s.end() && it->is_boolean() && it->get<bool>()) {
      return Invalid(field, "is not available on this service");
    }
  }
  return OkStatus();
}

std::string Render(const std::string& text, bool base64) {
  return base64 ? Base64Encode(text) : SanitizeUtf8(text);
}

json TextOrNull(const json& value, bool base64) {
  if (!value.is_string() || value.get<std::string>().empty()) return nullptr;
  return Render(value.get<std::string>(), base64);
}

int StatusForSignal(const std::string& signal) {
  if (signal == "SIGSEGV") return kRuntimeSigsegv;
  if (signal == "SIGXFSZ") return kRuntimeSigxfsz;
  if (signal == "SIGFPE") return kRuntimeSigfpe;
  if (signal == "SIGABRT") return kRuntimeSigabrt;
  return kRuntimeOther;
}

// Judge0's status of a finished job's `result` (the /v1 result JSON).
int StatusOfResult(const json& result) {
  const std::string status = result.value("status", "error");
  const json& error = result.contains("error") ? result["error"] : json();
  const std::string reason = error.is_object() ? error.value("code", "") : "";
  if (reason == isolation::kReasonCompileError) return kCompilationError;
  if (result.contains("judge") && result["judge"].is_object()) {
    const std::string verdict = result["judge"].value("verdict", "");
    if (verdict == "accepted") return kAccepted;
    if (verdict == "wrong_answer") return kWrongAnswer;
  }
  if (status == "succeeded") return kAccepted;
  if (status == "timeout") return kTimeLimitExceeded;
  if (status == "oom") return kRuntimeOther;
  if (status != "failed") return kInternalError;
  if (result.value("signal", json()).is_string()) return StatusForSignal(result["signal"]);
  if (result.value("exit_code", json()).is_number() && result["exit_code"] != 0) {
    return kRuntimeNzec;
  }
  return kRuntimeOther;  // Stopped for a bound on /output, an output cap.
}

// isolate's words for how the program ended, as Judge0 shows them in
// "message"; null when it ended well.
json MessageOf(int status, const json& result) {
  switch (status) {
    case kTimeLimitExceeded:
      return "Time limit exceeded";
    case kRuntimeNzec:
      return "Exited with error status " + std::to_string(result.value("exit_code", 0));
    case kRuntimeSigsegv:
    case kRuntimeSigxfsz:
    case kRuntimeSigfpe:
    case kRuntimeSigabrt:
    case kRuntimeOther:
    case kInternalError: {
      const json& error = result.contains("error") ? result["error"] : json();
      if (error.is_object()) return error.value("message", "");
      if (result.value("status", "") == "oom") return "Memory limit exceeded";
      return result.value("signal", json()).is_string()
                 ? json("Caught fatal signal " + result["signal"].get<std::string>())
                 : json(nullptr);
    }
    default:
      return nullptr;
  }
}

std::string Iso8601(int64_t ms) {
  if (ms <= 0) return "";
  time_t secs = static_cast<time_t>(ms / 1000);
  struct tm utc;
  gmtime_r(&secs, &utc);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &utc);
  char millis[8];
  std::snprintf(millis, sizeof(millis), ".%03dZ", static_cast<int>(ms % 1000));
  return std::string(buf) + millis;
}

json Seconds(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", static_cast<double>(ms) / 1000.0);
  return buf;
}

}  // namespace

json Judge0InvalidJson(const Status& status) {
  const std::string& m = status.message();
  size_t colon = m.find(": ");
  if (colon == std::string::npos) return {{"error", m}};
  return {{m.substr(0, colon), json::array({m.substr(colon + 2)})}};
}

StatusOr<json> Judge0ToJob(const json& s, bool base64, const config::Config& config) {
  if (!s.is_object()) return Invalid("submission", "must be a JSON object");
  CR_RETURN_IF_ERROR(RefuseUnavailable(s));
  auto id = s.find("language_id");
  if (id == s.end() || id->is_null()) return Invalid("language_id", "can't be blank");
  int language_id = 0;
  if (id->is_number_integer()) {
    language_id = id->get<int>();
  } else if (id->is_string() && !id->get<std::string>().empty() &&
             id->get<std::string>().find_first_not_of("0123456789") == std::string::npos &&
             id->get<std::string>().size() < 9) {
    language_id = std::stoi(id->get<std::string>());  // Judge0 takes "4" too.
  }
  const Judge0Language* language = LanguageById(language_id);
  if (language == nullptr || config.FindLanguage(language->language) == nullptr) {
    return Invalid("language_id", "language with id " + id->dump() + " doesn't exist");
  }
  CR_ASSIGN_OR_RETURN(std::string code, Text(s, "source_code", base64));
  if (code.empty()) return Invalid("source_code", "can't be blank");
  CR_ASSIGN_OR_RETURN(std::string in, Text(s, "stdin", base64));
  json job = {{"language", language->language}, {"code", code}, {"stdin", in}};
  json limits = json::object();
  CR_ASSIGN_OR_RETURN(auto cpu, LimitIn(s, "cpu_time_limit", 1000));
  CR_ASSIGN_OR_RETURN(auto wall, LimitIn(s, "wall_time_limit", 1000));
  CR_ASSIGN_OR_RETURN(auto memory, LimitIn(s, "memory_limit", 1024));
  CR_ASSIGN_OR_RETURN(auto pids, LimitIn(s, "max_processes_and_or_threads", 1));
  if (cpu) limits["cpu_ms"] = *cpu;
  if (wall) limits["timeout_ms"] = *wall;
  if (memory) limits["memory_bytes"] = *memory;
  if (pids) limits["pids"] = *pids;
  if (!limits.empty()) job["limits"] = std::move(limits);
  CR_ASSIGN_OR_RETURN(std::string args, Text(s, "command_line_arguments", false));
  std::istringstream words(args);
  json argv = json::array();
  for (std::string w; words >> w;) argv.push_back(w);
  if (!argv.empty()) job["args"] = std::move(argv);
  auto expected = s.find("expected_output");
  if (expected != s.end() && !expected->is_null()) {
    CR_ASSIGN_OR_RETURN(std::string want, Text(s, "expected_output", base64));
    job["cases"] = json::array({{{"stdin", in}, {"expected_output", want}}});
  }
  return job;
}

StatusOr<std::set<std::string>> Judge0Fields(const std::string& query) {
  if (query.empty()) return DefaultFields();
  if (query == "*") return AllFields();
  std::set<std::string> out;
  std::istringstream in(query);
  for (std::string f; std::getline(in, f, ',');) {
    if (f.empty()) continue;
    if (AllFields().count(f) == 0) return Invalid("fields", "unknown field " + f);
    out.insert(f);
  }
  return out.empty() ? DefaultFields() : out;
}

json Judge0SubmissionJson(const store::JobRecord& record, bool base64,
                          const std::set<std::string>& fields) {
  json request = json::parse(record.request_json, nullptr, false);
  const json body =
      request.is_object() && request.contains("request") ? request["request"] : json();
  json result = json::parse(record.result_json, nullptr, false);
  if (!result.is_object()) result = json::object();
  int status = kInQueue;
  if (record.status == store::JobStatus::kRunning) status = kProcessing;
  if (store::IsTerminal(record.status)) status = StatusOfResult(result);
  const bool done = status > kProcessing;
  const json& metrics = result.contains("metrics") ? result["metrics"] : json();
  const Judge0Language* language = LanguageByName(record.language);
  json all;
  all["token"] = record.id;
  all["status"] = {{"id", status}, {"description", kStatusDescriptions[status]}};
  all["status_id"] = status;
  all["language_id"] = language != nullptr ? json(language->id) : json(nullptr);
  all["source_code"] = body.is_object() ? TextOrNull(body.value("code", json()), base64) : json();
  all["stdin"] = body.is_object() ? TextOrNull(body.value("stdin", json()), base64) : json();
  json expected;
  if (body.is_object() && body.value("cases", json()).is_array() && !body["cases"].empty()) {
    expected = TextOrNull(body["cases"][0].value("expected_output", json()), base64);
  }
  all["expected_output"] = expected;
  all["stdout"] = done ? TextOrNull(result.value("stdout", json()), base64) : json();
  all["stderr"] = done ? TextOrNull(result.value("stderr", json()), base64) : json();
  all["compile_output"] = done && result.value("compile", json()).is_object()
                              ? TextOrNull(result["compile"].value("output", json()), base64)
                              : json();
  json message = done ? MessageOf(status, result) : json();
  all["message"] = message.is_string() ? json(Render(message.get<std::string>(), base64)) : message;
  all["exit_code"] = done ? result.value("exit_code", json()) : json();
  json signal = result.value("signal", json());
  const int signal_number = signal.is_string() ? wire::SignalNumber(signal.get<std::string>()) : 0;
  all["exit_signal"] = done && signal_number > 0 ? json(signal_number) : json(nullptr);
  const bool measured = done && metrics.is_object();
  all["time"] = measured ? Seconds(metrics.value("cpu_ms", 0LL)) : json();
  all["wall_time"] = measured ? Seconds(metrics.value("run_ms", 0LL)) : json();
  all["memory"] = measured ? json(metrics.value("memory_peak_bytes", 0LL) / 1024) : json();
  all["created_at"] = Iso8601(record.created_at_ms);
  all["finished_at"] = done ? json(Iso8601(record.finished_at_ms)) : json();
  json out = json::object();
  for (const std::string& f : fields) out[f] = all[f];
  return out;
}

json Judge0LanguagesJson(const config::Config& config) {
  json out = json::array();
  for (const Judge0Language& l : kJudge0Languages) {
    const isolation::LanguageSpec* spec = config.FindLanguage(l.language);
    if (spec == nullptr || spec->name != l.language) continue;
    out.push_back({{"id", l.id}, {"name", std::string(l.name) + " (" + spec->image + ")"}});
  }
  return out;
}

StatusOr<json> Judge0LanguageJson(const config::Config& config, int id) {
  const Judge0Language* l = LanguageById(id);
  const isolation::LanguageSpec* spec = l != nullptr ? config.FindLanguage(l->language) : nullptr;
  if (spec == nullptr) return NotFoundError("no language " + std::to_string(id), "not_found");
  auto joined = [](const std::vector<std::string>& argv) {
    std::string s;
    for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
    return s;
  };
  return json{{"id", l->id},
              {"name", std::string(l->name) + " (" + spec->image + ")"},
              {"is_archived", false},
              {"source_file", spec->file},
              {"compile_cmd", spec->compile.empty() ? json(nullptr) : json(joined(spec->compile))},
              {"run_cmd", joined(spec->command)}};
}

json Judge0StatusesJson() {
  json out = json::array();
  for (int id = 1; id <= kLastStatus; ++id) {
    out.push_back({{"id", id}, {"description", kStatusDescriptions[id]}});
  }
  return out;
}

}  // namespace coderunner::api
