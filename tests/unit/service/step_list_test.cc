#include "service/step_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::service {
namespace {

struct StepListCase {
  const char* name;
  std::vector<std::string> steps;
  std::string failing;  // The step that fails; "" = none.
  std::vector<std::string> want_ran;
  std::string want_message;  // "" = OK.
};

class StepListTest : public ::testing::TestWithParam<StepListCase> {};

TEST_P(StepListTest, RunsInOrderAndStopsAtTheFirstFailure) {
  const StepListCase& tc = GetParam();
  std::vector<std::string> ran;
  StepList list;
  for (const std::string& step : tc.steps) {
    list.Add(step, [&ran, &tc, step]() -> Status {
      ran.push_back(step);
      if (step == tc.failing) return UnavailableError("it broke", "engine_unavailable");
      return OkStatus();
    });
  }
  EXPECT_EQ(list.names(), tc.steps);
  Status status = list.Run();
  EXPECT_EQ(ran, tc.want_ran);
  if (tc.want_message.empty()) {
    EXPECT_TRUE(status.ok()) << status.ToString();
  } else {
    EXPECT_EQ(status.code(), StatusCode::kUnavailable);
    EXPECT_EQ(status.reason(), "engine_unavailable");
    EXPECT_EQ(status.message(), tc.want_message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, StepListTest,
    ::testing::Values(StepListCase{"empty", {}, "", {}, ""},
                      StepListCase{"all_pass", {"a", "b", "c"}, "", {"a", "b", "c"}, ""},
                      StepListCase{"first_fails", {"a", "b", "c"}, "a", {"a"}, "a: it broke"},
                      StepListCase{"middle_fails", {"a", "b", "c"}, "b", {"a", "b"}, "b: it broke"},
                      StepListCase{
                          "last_fails", {"a", "b", "c"}, "c", {"a", "b", "c"}, "c: it broke"},
                      StepListCase{"names_with_spaces",
                                   {"init binary", "open stores"},
                                   "open stores",
                                   {"init binary", "open stores"},
                                   "open stores: it broke"}),
    [](const ::testing::TestParamInfo<StepListCase>& info) { return info.param.name; });

}  // namespace
}  // namespace coderunner::service
