#include "cli/exit_codes.h"

#include <gtest/gtest.h>

namespace coderunner::cli {
namespace {

using nlohmann::json;

struct ExitCase {
  const char* name;
  json result;
  int want;
};

class ExitCodeForResultTest : public ::testing::TestWithParam<ExitCase> {};

TEST_P(ExitCodeForResultTest, MirrorsTheJob) {
  EXPECT_EQ(ExitCodeForResult(GetParam().result), GetParam().want) << GetParam().result.dump();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ExitCodeForResultTest,
    ::testing::Values(
        ExitCase{"succeeded", {{"status", "succeeded"}, {"exit_code", 0}}, 0},
        ExitCase{"failed_exit_3", {{"status", "failed"}, {"exit_code", 3}, {"signal", nullptr}}, 3},
        ExitCase{"killed_by_segv",
                 {{"status", "failed"}, {"exit_code", 139}, {"signal", "SIGSEGV"}},
                 139},
        ExitCase{"killed_by_term_no_code", {{"status", "failed"}, {"signal", "SIGTERM"}}, 143},
        ExitCase{"numbered_signal", {{"status", "failed"}, {"signal", "SIG10"}}, 138},
        ExitCase{"failed_without_code", {{"status", "failed"}, {"exit_code", nullptr}}, 1},
        ExitCase{"failed_exit_0_output_bound", {{"status", "failed"}, {"exit_code", 0}}, 1},
        ExitCase{"timeout", {{"status", "timeout"}, {"exit_code", 137}}, 124},
        ExitCase{"oom", {{"status", "oom"}, {"exit_code", nullptr}}, 137},
        ExitCase{"cancelled", {{"status", "cancelled"}}, 130},
        ExitCase{"error", {{"status", "error"}, {"exit_code", nullptr}}, 125},
        ExitCase{"unknown_status", {{"status", "exploded"}}, 125},
        ExitCase{"not_an_object", json(nullptr), 125},
        ExitCase{"exit_code_wraps_to_8_bits", {{"status", "failed"}, {"exit_code", 256 + 7}}, 7}),
    [](const ::testing::TestParamInfo<ExitCase>& info) { return info.param.name; });

}  // namespace
}  // namespace coderunner::cli
