// `coderunner intent`: an intent through POST /v1/intents, its progress
// from the job's event stream (/v1/jobs/{id}/events sends the record as
// "state", every stage change as "stage" and the final record as
// "result"), and the final record from /wait in case the stream broke.
#include <array>
#include <nlohmann/json.hpp>

#include "coderunner/common/bounded_json.h"
#include "commands.h"
#include "console.h"
#include "exit_codes.h"

namespace coderunner::cli {
namespace {

using nlohmann::json;

constexpr const char* kStageNames[] = {"discover_agent", "generate_code", "execute",
                                       "format_result"};

// Draws each stage's changes as one line: "[2/4] generate_code: running".
class StageView {
 public:
  explicit StageView(Spinner* spinner) : spinner_(spinner) {}

  void Show(const json& stage) {
    if (!stage.is_object()) return;
    std::string name = stage.value("name", "");
    std::string status = stage.value("status", "");
    for (size_t i = 0; i < seen_.size(); ++i) {
      if (name != kStageNames[i]) continue;
      std::string detail = stage.contains("detail") && stage["detail"].is_string()
                               ? stage["detail"].get<std::string>()
                               : "";
      std::string key = status + "\n" + detail;
      // The first "state" event repeats what stage events may say again.
      if (status == "pending" || seen_[i] == key) return;
      seen_[i] = key;
      std::string line = "[" + std::to_string(i + 1) + "/4] " + name + ": " + status;
      if (!detail.empty()) line += " - " + detail;
      spinner_->Print(line + "\n");
      spinner_->SetLabel(name + " " + status);
      return;
    }
  }

  void ShowAll(const json& record) {
    if (!record.is_object() || !record.contains("stages")) return;
    for (const auto& s : record["stages"]) Show(s);
  }

 private:
  Spinner* spinner_;
  std::array<std::string, 4> seen_;
};

}  // namespace

int IntentCommand(const IntentArgs& args, const CommandContext& ctx) {
  CatchInterrupts();
  json body = {{"intent", args.intent}};
  if (!args.inputs.is_null()) body["inputs"] = args.inputs;
  if (!args.language.empty()) body["language"] = args.language;
  if (!args.verify.empty()) body["verify"] = args.verify;
  auto accepted = ctx.client->Call("POST", "/v1/intents",
                                   body.dump(-1, ' ', false, json::error_handler_t::replace));
  if (!accepted.ok()) return ReportError(accepted.status());
  std::string id = accepted->body.is_object() ? accepted->body.value("id", "") : "";
  if (id.empty())
    return ReportError(InternalError("the service accepted the intent without an id"));

  Spinner spinner(ctx.progress, "intent " + id);
  StageView view(&spinner);
  json record;
  // Progress only matters on a terminal; without one the stream is skipped
  // and /wait alone brings the record.
  if (ctx.progress) {
    Status streamed = ctx.client->StreamEvents(
        "/v1/jobs/" + id + "/events",
        [&](const std::string& event, const std::string& data) {
          json d = ParseBoundedJsonOrDiscarded(data, JsonBounds{});
          if (event == "state") view.ShowAll(d);
          if (event == "stage") view.Show(d);
          if (event == "result") {
            record = std::move(d);
            return false;
          }
          return true;
        },
        std::chrono::seconds(60), InterruptFlag());
    // A broken stream is not fatal: /wait below still brings the result.
    (void)streamed;
  }
  if (!record.is_object()) {
    if (auto code = AwaitRecord(ctx, id, "intent " + id, spinner, &record)) return *code;
  }
  view.ShowAll(record);
  spinner.Stop();

  std::string status = record.value("status", "");
  int code = 0;
  if (status != "succeeded") {
    const json& result = record.contains("result") ? record["result"] : json();
    code = result.is_object() ? ExitCodeForResult(result) : kExitError;
    if (code == 0) code = kExitFailed;
  }
  if (args.common.json) {
    WriteOut(record.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
    return code;
  }
  if (status == "succeeded") {
    std::string answer = record.contains("answer") && record["answer"].is_string()
                             ? record["answer"].get<std::string>()
                             : "";
    if (!answer.empty() && answer.back() != '\n') answer += '\n';
    WriteOut(answer);
    return 0;
  }
  const json& error = record.contains("error") ? record["error"] : json();
  std::string message = error.is_object() ? error.value("message", "") : "";
  std::string stage = error.is_object() ? error.value("stage", "") : "";
  std::string reason = error.is_object() ? error.value("code", "") : "";
  WriteErr("coderunner: intent " + id + " " + (status.empty() ? "failed" : status) +
           (stage.empty() ? "" : " at " + stage) + (message.empty() ? "" : ": " + message) +
           (reason.empty() ? "" : " (" + reason + ")") + "\n");
  return code;
}

}  // namespace coderunner::cli
