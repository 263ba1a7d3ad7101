// `coderunner judge`: a program against a directory of cases, judged by
// the service (a request with "cases", docs/judging.md) through the async
// API, as `run` waits for its job.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "console.h"
#include "exit_codes.h"
#include "judge_cases.h"

namespace coderunner::cli {
namespace {

using nlohmann::json;

StatusOr<json> BuildJudgeRequest(const JudgeArgs& args, const std::vector<CaseFiles>& found) {
  std::string language = args.language;
  if (language.empty()) {
    CR_ASSIGN_OR_RETURN(language, LanguageFromPath(args.source));
  }
  CR_ASSIGN_OR_RETURN(std::string code, ReadInput(args.source));
  json cases = json::array();
  for (const CaseFiles& c : found) {
    std::string in;
    if (!c.input.empty()) {
      CR_ASSIGN_OR_RETURN(in, ReadInput(c.input));
    }
    CR_ASSIGN_OR_RETURN(std::string expected, ReadInput(c.expected));
    cases.push_back({{"stdin", std::move(in)}, {"expected_output", std::move(expected)}});
  }
  json body = {{"language", language}, {"code", code}, {"cases", std::move(cases)}};
  json compare = json::object();
  if (!args.compare.empty()) compare["mode"] = args.compare;
  if (args.tolerance) {
    compare["abs_tolerance"] = *args.tolerance;
    compare["rel_tolerance"] = *args.tolerance;
  }
  if (!compare.empty()) body["compare"] = std::move(compare);
  if (args.stop) body["stop_at_first_failure"] = true;
  json limits = json::object();
  if (args.timeout_ms) limits["timeout_ms"] = *args.timeout_ms;
  if (args.memory_bytes) limits["memory_bytes"] = *args.memory_bytes;
  if (!limits.empty()) body["limits"] = std::move(limits);
  return body;
}

// One line per case: its name, verdict, run time and peak memory.
void PrintCases(const std::vector<CaseFiles>& found, const json& cases) {
  size_t width = 0;
  for (const CaseFiles& c : found) width = std::max(width, c.name.size());
  for (size_t i = 0; i < found.size() && i < cases.size(); ++i) {
    const json& c = cases[i];
    char line[512];
    std::string verdict = c.value("verdict", "?");
    if (c.contains("metrics") && c["metrics"].is_object()) {
      const json& m = c["metrics"];
      std::snprintf(line, sizeof(line), "%-*s  %-14s %6lld ms  %7.1f MiB\n",
                    static_cast<int>(width), found[i].name.c_str(), verdict.c_str(),
                    static_cast<long long>(m.value("run_ms", 0LL)),
                    static_cast<double>(m.value("memory_peak_bytes", 0LL)) / (1 << 20));
    } else {
      std::snprintf(line, sizeof(line), "%-*s  %s\n", static_cast<int>(width),
                    found[i].name.c_str(), verdict.c_str());
    }
    WriteOut(line);
  }
}

}  // namespace

int JudgeCommand(const JudgeArgs& args, const CommandContext& ctx) {
  auto found = FindCases(args.cases_dir);
  if (!found.ok()) return ReportError(found.status());
  auto body = BuildJudgeRequest(args, *found);
  if (!body.ok()) return ReportError(body.status());
  CatchInterrupts();
  auto submitted = SubmitJob(ctx, *body);
  if (!submitted.ok()) return ReportError(submitted.status());
  const std::string& id = *submitted;

  Spinner spinner(ctx.progress,
                  "judging " + id + " over " + std::to_string(found->size()) + " cases");
  json record;
  if (auto code = AwaitRecord(ctx, id, "job " + id, spinner, &record)) return *code;
  spinner.Stop();
  const json* result =
      record.is_object() && record.contains("result") ? &record["result"] : nullptr;
  if (args.common.json) {
    WriteOut(record.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
  }
  if (result == nullptr || !result->is_object() || !result->contains("judge")) {
    const json* error =
        result != nullptr && result->contains("error") ? &(*result)["error"] : nullptr;
    std::string why = error != nullptr && error->is_object() ? error->value("message", "")
                                                             : "job " + id + " was not judged";
    return ReportError(InternalError(why));
  }
  const json& judged = (*result)["judge"];
  const std::string verdict = judged.value("verdict", "");
  if (!args.common.json) {
    PrintCases(*found, judged["cases"]);
    if (verdict == "compile_error" && result->contains("compile")) {
      WriteErr((*result)["compile"].value("output", ""));
    }
    WriteOut(verdict + ": " + std::to_string(judged.value("passed", 0)) + " of " +
             std::to_string(judged.value("total", 0)) + " cases accepted\n");
  }
  if (verdict == "accepted") return 0;
  return verdict == "internal_error" ? kExitError : kExitFailed;
}

}  // namespace coderunner::cli
