#include "coderunner/wire/judge_request.h"

#include <cmath>
#include <utility>

#include "coderunner/wire/execute_request.h"

namespace coderunner::wire {
namespace {

using nlohmann::json;

Status BadField(const std::string& field, const std::string& why) {
  return InvalidArgumentError(field + ": " + why, "invalid_request");
}

// The fields a case shares with a request: parsed as a request's are.
constexpr const char* kCaseRunFields[] = {"stdin", "args", "files", "limits"};
constexpr char kExpectedOutput[] = "expected_output";

StatusOr<JudgeCaseRequest> ParseCase(const json& entry, const std::string& where,
                                     const RequestCaps& caps) {
  if (!entry.is_object()) return BadField(where, "must be an object");
  json run = {{"code", ""}};
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    bool known = it.key() == kExpectedOutput;
    for (const char* field : kCaseRunFields) known = known || it.key() == field;
    if (!known) {
      return BadField(where + "." + it.key(),
                      "unknown field (known: args, expected_output, files, limits, stdin)");
    }
    if (it.key() != kExpectedOutput) run[it.key()] = it.value();
  }
  auto expected = entry.find(kExpectedOutput);
  if (expected == entry.end() || !expected->is_string()) {
    return BadField(where + "." + kExpectedOutput, "is required, a string");
  }
  StatusOr<ExecuteRequest> parsed = ExecuteRequestFromJson(run, caps);
  if (!parsed.ok()) return parsed.status().WithContext(where);
  JudgeCaseRequest c;
  c.stdin_data = std::move(parsed->stdin_data);
  c.args = std::move(parsed->args);
  c.files = std::move(parsed->files);
  c.limits = parsed->limits;
  c.expected_output = expected->get<std::string>();
  return c;
}

Status ParseTolerance(const json& compare, const char* key, double* out) {
  auto it = compare.find(key);
  if (it == compare.end() || it->is_null()) return OkStatus();
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
    return BadField(std::string("compare.") + key, "must be a number >= 0");
  }
  *out = it->get<double>();
  return OkStatus();
}

StatusOr<judge::MatchRule> ParseCompare(const json& compare) {
  judge::MatchRule rule;
  if (!compare.is_object()) return BadField("compare", "must be an object");
  for (auto it = compare.begin(); it != compare.end(); ++it) {
    if (it.key() != "mode" && it.key() != "abs_tolerance" && it.key() != "rel_tolerance") {
      return BadField("compare." + it.key(),
                      "unknown field (known: abs_tolerance, mode, rel_tolerance)");
    }
  }
  if (auto mode = compare.find("mode"); mode != compare.end() && !mode->is_null()) {
    std::optional<judge::MatchMode> parsed =
        mode->is_string() ? judge::ParseMatchMode(mode->get<std::string>()) : std::nullopt;
    if (!parsed) {
      return BadField("compare.mode",
                      "must be \"exact\", \"trailing_whitespace\", \"tokens\" or \"numbers\"");
    }
    rule.mode = *parsed;
  }
  CR_RETURN_IF_ERROR(ParseTolerance(compare, "abs_tolerance", &rule.abs_tolerance));
  CR_RETURN_IF_ERROR(ParseTolerance(compare, "rel_tolerance", &rule.rel_tolerance));
  return rule;
}

bool Present(const json& body, const char* key) {
  auto it = body.find(key);
  return it != body.end() && !it->is_null();
}

// `override` where the case sets it, else the request's.
isolation::LimitOverrides Merged(const isolation::LimitOverrides& request,
                                 const isolation::LimitOverrides& c) {
  isolation::LimitOverrides m = request;
  if (c.timeout_ms) m.timeout_ms = c.timeout_ms;
  if (c.cpu_ms) m.cpu_ms = c.cpu_ms;
  if (c.memory_bytes) m.memory_bytes = c.memory_bytes;
  if (c.pids) m.pids = c.pids;
  if (c.output_bytes) m.output_bytes = c.output_bytes;
  if (c.tmp_bytes) m.tmp_bytes = c.tmp_bytes;
  if (c.cpus) m.cpus = c.cpus;
  return m;
}

}  // namespace

StatusOr<std::optional<JudgeRequest>> ParseJudgeFields(const json& body, const RequestCaps& caps) {
  if (!Present(body, "cases")) {
    for (const char* key : {"compare", "stop_at_first_failure"}) {
      if (Present(body, key)) return BadField(key, "applies to \"cases\", which is absent");
    }
    return std::optional<JudgeRequest>();
  }
  const json& cases = body["cases"];
  if (!cases.is_array() || cases.empty()) return BadField("cases", "must be a non-empty array");
  if (static_cast<int64_t>(cases.size()) > caps.max_cases) {
    return BadField("cases", "more than " + std::to_string(caps.max_cases) + " entries");
  }
  JudgeRequest out;
  for (size_t i = 0; i < cases.size(); ++i) {
    CR_ASSIGN_OR_RETURN(JudgeCaseRequest c,
                        ParseCase(cases[i], "cases[" + std::to_string(i) + "]", caps));
    out.cases.push_back(std::move(c));
  }
  if (Present(body, "compare")) {
    CR_ASSIGN_OR_RETURN(out.rule, ParseCompare(body["compare"]));
  }
  if (Present(body, "stop_at_first_failure")) {
    if (!body["stop_at_first_failure"].is_boolean()) {
      return BadField("stop_at_first_failure", "must be a boolean");
    }
    out.stop_at_first_failure = body["stop_at_first_failure"].get<bool>();
  }
  return std::optional<JudgeRequest>(std::move(out));
}

StatusOr<judge::JudgePlan> BuildJudgePlan(const ExecuteRequest& request,
                                          const isolation::JobSpec& job,
                                          const config::Config& config,
                                          const config::TierConfig* tier) {
  judge::JudgePlan plan;
  if (!request.judge) return plan;
  plan.rule = request.judge->rule;
  plan.stop_at_first_failure = request.judge->stop_at_first_failure;
  for (size_t i = 0; i < request.judge->cases.size(); ++i) {
    const JudgeCaseRequest& c = request.judge->cases[i];
    judge::TestCase out;
    out.stdin_data = c.stdin_data;
    out.args = c.args;
    out.files = c.files;
    out.expected_output = c.expected_output;
    // Resolved as the request's own limits and files are: a probe of the
    // same language and tier, with the case's limits over the request's.
    ExecuteRequest probe;
    probe.language = request.language;
    probe.files = c.files;
    probe.limits = Merged(request.limits, c.limits);
    StatusOr<isolation::JobSpec> resolved = BuildJobSpec(probe, config, job.id, tier);
    if (!resolved.ok()) return resolved.status().WithContext("cases[" + std::to_string(i) + "]");
    out.limits = resolved->limits;
    for (const isolation::InputFile& f : out.files) {
      for (const isolation::InputFile& own : job.files) {
        if (f.path == own.path) {
          return InvalidArgumentError("cases[" + std::to_string(i) + "].files: '" + f.path +
                                          "' is also one of the request's files",
                                      "invalid_path");
        }
      }
    }
    plan.cases.push_back(std::move(out));
  }
  return plan;
}

}  // namespace coderunner::wire
