#include "e2b/e2b_execution_lines.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "coderunner/sandboxes/cell_records.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;

void AddLine(std::string* out, const json& line) {
  out->append(line.dump(-1, ' ', false, json::error_handler_t::replace));
  out->push_back('\n');
}

// One result line: each format, `json` as the value its text holds.
json ResultLine(const sandboxes::RichResult& result, const JsonBounds& bounds) {
  json line = {{"type", "result"}, {"is_main_result", result.is_main_result}};
  for (const auto& [format, data] : result.formats) {
    if (format == "json") {
      json value = ParseBoundedJsonOrDiscarded(data, bounds);
      line[format] = value.is_discarded() ? json(data) : value;
    } else {
      line[format] = data;
    }
  }
  return line;
}

bool StartsTraceback(std::string_view line) {
  for (std::string_view start : ExecutionLines::kTracebackStarts) {
    if (line.starts_with(start)) return true;
  }
  return false;
}

}  // namespace

std::string ExecutionLines::Complete(bool is_stderr, Stream& s, std::string line) {
  if (is_stderr) {
    s.holding = s.holding || StartsTraceback(line);
    if (s.holding) {
      s.line += line;  // Waits for End, with what follows it.
      return "";
    }
  } else if (size_t at = line.find(sandboxes::kCellRecordPrefix); at != std::string::npos) {
    // A record runs to the end of its line, and the output before it goes
    // on with what comes next (TakeCellRecords).
    s.line = line.substr(0, at);
    return "";
  }
  s.sent += line;
  std::string out;
  AddLine(&out, {{"type", is_stderr ? "stderr" : "stdout"}, {"text", std::move(line)}});
  return out;
}

std::string ExecutionLines::Piece(bool is_stderr, std::string_view bytes) {
  Stream& s = is_stderr ? err_ : out_;
  std::string out;
  while (!bytes.empty()) {
    const size_t eol = bytes.find('\n');
    if (eol == std::string_view::npos || s.holding) {
      s.line.append(bytes);
      break;
    }
    std::string line = std::move(s.line);
    s.line.clear();
    line.append(bytes.substr(0, eol + 1));
    bytes.remove_prefix(eol + 1);
    out += Complete(is_stderr, s, std::move(line));
  }
  return out;
}

std::string ExecutionLines::Rest(const char* type, const Stream& s,
                                 const std::string& final_text) const {
  std::string_view rest(final_text);
  if (rest.starts_with(s.sent)) rest.remove_prefix(s.sent.size());
  std::string out;
  if (!rest.empty()) AddLine(&out, {{"type", type}, {"text", std::string(rest)}});
  return out;
}

std::string ExecutionLines::Failed(const Status& status) const {
  std::string out;
  AddLine(&out, {{"type", "error"},
                 {"name", status.reason()},
                 {"value", status.message()},
                 {"traceback", ""}});
  return out;
}

std::string ExecutionLines::End(const sandboxes::ExecuteOutcome& o) {
  const sandboxes::CallResult& r = o.result;
  std::string stderr_data = r.stderr_data;
  if (r.cell.error && stderr_data.ends_with(r.cell.error->traceback)) {
    stderr_data.resize(stderr_data.size() - r.cell.error->traceback.size());
  }
  std::string out = Rest("stdout", out_, r.stdout_data) + Rest("stderr", err_, stderr_data);
  for (const auto& result : r.cell.results) AddLine(&out, ResultLine(result, bounds_));
  if (r.cell.error) {
    AddLine(&out, {{"type", "error"},
                   {"name", r.cell.error->name},
                   {"value", r.cell.error->value},
                   {"traceback", r.cell.error->traceback}});
  } else if (r.status == isolation::RunStatus::kTimeout) {
    AddLine(&out, {{"type", "error"},
                   {"name", "TimeoutError"},
                   {"value", "the execution ran past its timeout"},
                   {"traceback", ""}});
  } else if (!r.error.ok()) {
    AddLine(&out, {{"type", "error"},
                   {"name", r.error.reason()},
                   {"value", r.error.message()},
                   {"traceback", ""}});
  }
  AddLine(&out, {{"type", "number_of_executions"}, {"execution_count", o.record.executions}});
  return out;
}

}  // namespace coderunner::api::e2b
