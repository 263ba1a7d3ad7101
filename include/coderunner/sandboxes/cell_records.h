// CellRecords: the rich results a sandbox's REPL driver reports on stdout.
#ifndef CODERUNNER_SANDBOXES_CELL_RECORDS_H_
#define CODERUNNER_SANDBOXES_CELL_RECORDS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace coderunner::sandboxes {

// One thing a cell shows, as a notebook would: the value of its last
// expression (the main result), a display() call or a chart.
struct RichResult {
  bool is_main_result = false;
  // Format ("text", "html", "markdown", "svg", "png", "jpeg", "latex",
  // "json", "javascript") to its data: text, or base64 for png and jpeg,
  // JSON text for json.
  std::map<std::string, std::string> formats;
};

// The exception that ended a cell.
struct CellError {
  std::string name;       // Its type, e.g. "ZeroDivisionError".
  std::string value;      // Its message.
  std::string traceback;  // As the driver also wrote it to stderr.
};

struct CellRecords {
  std::vector<RichResult> results;  // In the order the cell made them.
  std::optional<CellError> error;
};

// The line that starts each record: "\x1e" "coderunner-result " JSON "\n".
inline constexpr char kCellRecordPrefix[] =
    "\x1e"
    "coderunner-result ";

// Takes every whole record out of `stdout_data` (from kCellRecordPrefix,
// wherever it starts, which may be after output the user did not end with
// a newline, to the next "\n") and returns what they say. The rest stays,
// in order. A record that is not what the
// driver writes (not JSON, nested past a few levels, a format that is not a
// string, a type it never writes) is dropped: the code in the sandbox can
// print anything, so nothing here trusts its shape. A record the output cap
// cut off (no "\n") stays as output. Pure; linear in stdout_data.size().
CellRecords TakeCellRecords(std::string* stdout_data);

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_CELL_RECORDS_H_
