#include "coderunner/sandboxes/cell_records.h"

#include <gtest/gtest.h>

#include <string>

namespace coderunner::sandboxes {
namespace {

const std::string kPrefix = kCellRecordPrefix;

struct Case {
  const char* name;
  std::string stdout_data;
  std::string want_stdout;  // What stays: the user's output.
  size_t want_results;
  std::string want_first_text;  // formats["text"] of the first result.
  bool want_first_main;
  std::string want_error_name;  // "" when no error.
};

class CellRecordsTest : public ::testing::TestWithParam<Case> {};

TEST_P(CellRecordsTest, TakesRecordsAndLeavesTheOutput) {
  const Case& c = GetParam();
  std::string out = c.stdout_data;
  CellRecords records = TakeCellRecords(&out);
  EXPECT_EQ(out, c.want_stdout);
  ASSERT_EQ(records.results.size(), c.want_results);
  if (c.want_results > 0) {
    EXPECT_EQ(records.results[0].formats["text"], c.want_first_text);
    EXPECT_EQ(records.results[0].is_main_result, c.want_first_main);
  }
  EXPECT_EQ(records.error ? records.error->name : "", c.want_error_name);
}

std::string Record(const std::string& json) { return kPrefix + json + "\n"; }

const std::string kMain = R"({"type":"result","is_main_result":true,"data":{"text":"2"}})";
const std::string kShown =
    R"({"type":"result","is_main_result":false,"data":{"png":"iVBO","text":"<Figure>"}})";
const std::string kError =
    R"({"type":"error","name":"ZeroDivisionError","value":"division by zero","traceback":"T"})";

INSTANTIATE_TEST_SUITE_P(
    Cases, CellRecordsTest,
    ::testing::Values(
        Case{"NoRecordsLeaveTheOutputAsItIs", "hello\nworld", "hello\nworld", 0, "", false, ""},
        Case{"AMainResult", "hi\n" + Record(kMain), "hi\n", 1, "2", true, ""},
        Case{"AfterOutputWithoutANewline", "no newline" + Record(kMain) + "after\n",
             "no newlineafter\n", 1, "2", true, ""},
        Case{"ResultsInOrderThenTheError", Record(kShown) + "x\n" + Record(kMain) + Record(kError),
             "x\n", 2, "<Figure>", false, "ZeroDivisionError"},
        Case{"ARecordCutByTheCapStaysOutput", "a\n" + kPrefix + R"({"type":"res)",
             "a\n" + kPrefix + R"({"type":"res)", 0, "", false, ""},
        Case{"NotJsonIsDropped", "a\n" + Record("{not json") + "b\n", "a\nb\n", 0, "", false, ""},
        Case{"TooDeepIsDropped",
             Record(R"({"type":"result","data":{"text":{"deep":[[[[1]]]]}}})") + "b\n", "b\n", 0,
             "", false, ""},
        Case{"DeepNestingIsRefusedWhileRead",
             Record(std::string(100000, '[') + std::string(100000, ']')), "", 0, "", false, ""},
        Case{"AFormatThatIsNotAStringIsLeftOut",
             Record(R"({"type":"result","data":{"text":"t","png":7}})"), "", 1, "t", false, ""},
        Case{"AnUnknownTypeIsDropped", Record(R"({"type":"mine","data":{"text":"t"}})"), "", 0, "",
             false, ""},
        Case{"NotUtf8IsDropped", Record("{\"type\":\"result\",\"data\":{\"text\":\"\xff\"}}"), "",
             0, "", false, ""}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace coderunner::sandboxes
