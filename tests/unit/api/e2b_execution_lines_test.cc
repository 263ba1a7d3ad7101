// ExecutionLines (src/api/e2b/e2b_execution_lines.h): a runCode call's
// NDJSON lines as its output comes, table-driven: whole lines as they
// complete, result records and tracebacks kept for the end, and the end
// sending exactly what was not sent.
#include "api/e2b/e2b_execution_lines.h"

#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/sandboxes/cell_records.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;

// "<type>:<text>" of each line of `ndjson` (e.g. "stdout:hi\n").
std::vector<std::string> Lines(const std::string& ndjson) {
  std::vector<std::string> out;
  std::istringstream in(ndjson);
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    std::string type = j["type"];
    if (type == "stdout" || type == "stderr") type += ":" + j["text"].get<std::string>();
    if (type == "error") type += ":" + j["name"].get<std::string>();
    out.push_back(type);
  }
  return out;
}

const std::string kRecord = std::string(sandboxes::kCellRecordPrefix) + R"({"type":"result"})";

struct Case {
  const char* name;
  std::vector<std::pair<bool, std::string>> pieces;  // (is_stderr, bytes).
  std::vector<std::vector<std::string>> want_each;   // Lines after each piece.
  std::string final_stdout;                          // The answer's, records taken out.
  std::string final_stderr;                          // The answer's.
  std::string traceback;                             // The cell's error's ("" none).
  std::vector<std::string> want_end;
};

class ExecutionLinesTest : public ::testing::TestWithParam<Case> {};

TEST_P(ExecutionLinesTest, SendsEachLineOnceAndTheRestAtTheEnd) {
  const Case& c = GetParam();
  ExecutionLines lines(JsonBounds{});
  ASSERT_EQ(c.pieces.size(), c.want_each.size());
  for (size_t i = 0; i < c.pieces.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(Lines(lines.Piece(c.pieces[i].first, c.pieces[i].second)), c.want_each[i]);
  }
  sandboxes::ExecuteOutcome outcome;
  outcome.result.stdout_data = c.final_stdout;
  outcome.result.stderr_data = c.final_stderr;
  outcome.record.executions = 7;
  if (!c.traceback.empty()) {
    outcome.result.cell.error = sandboxes::CellError{"ZeroDivisionError", "x", c.traceback};
  }
  EXPECT_EQ(Lines(lines.End(outcome)), c.want_end);
}

const std::string kTraceback =
    "Traceback (most recent call last):\n  File \"<cell>\", line 1\nZeroDivisionError: x\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, ExecutionLinesTest,
    ::testing::Values(
        Case{"whole lines as they complete, a partial one at the end",
             {{false, "a\nb"}, {false, "c\nd"}},
             {{"stdout:a\n"}, {"stdout:bc\n"}},
             "a\nbc\nd",
             "",
             "",
             {"stdout:d", "number_of_executions"}},
        Case{"each line its own message",
             {{false, "1\n2\n"}, {true, "warn\n"}},
             {{"stdout:1\n", "stdout:2\n"}, {"stderr:warn\n"}},
             "1\n2\n",
             "warn\n",
             "",
             {"number_of_executions"}},
        Case{"a result record is left to the end; the output around it goes on",
             {{false, "x" + kRecord.substr(0, 5)}, {false, kRecord.substr(5) + "\ny\n"}},
             {{}, {"stdout:xy\n"}},
             "xy\n",
             "",
             "",
             {"number_of_executions"}},
        Case{"a traceback waits for the end, and stays out of stderr",
             {{true, "before\n"}, {true, kTraceback}},
             {{"stderr:before\n"}, {}},
             "",
             "before\n" + kTraceback,
             kTraceback,
             {"error:ZeroDivisionError", "number_of_executions"}},
        Case{"stderr after a printed traceback comes at the end",
             {{true, "Traceback (most recent call last):\n"}, {true, "later\n"}},
             {{}, {}},
             "",
             "Traceback (most recent call last):\nlater\n",
             "",
             {"stderr:Traceback (most recent call last):\nlater\n", "number_of_executions"}},
        Case{"an answer that does not begin with what was sent is sent whole",
             {{false, "stale\n"}},
             {{"stdout:stale\n"}},
             "fresh\n",
             "",
             "",
             {"stdout:fresh\n", "number_of_executions"}}),
    [](const auto& info) {
      std::string name;
      for (const char* p = info.param.name; *p != '\0'; ++p) {
        if (std::isalnum(static_cast<unsigned char>(*p))) name += *p;
      }
      return name;
    });

TEST(ExecutionLinesFailedTest, AFailureAfterLinesIsAnErrorLine) {
  ExecutionLines lines(JsonBounds{});
  EXPECT_EQ(Lines(lines.Failed(NotFoundError("gone", "sandbox_not_found"))),
            std::vector<std::string>{"error:sandbox_not_found"});
}

}  // namespace
}  // namespace coderunner::api::e2b
