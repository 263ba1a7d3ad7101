#include "isolation/engine_loss.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "coderunner/engine/transport.h"

namespace coderunner::isolation {
namespace {

TEST(EngineLossTest, OnlyAnUnreachableEngineCountsAsLost) {
  const Status unreachable = UnavailableError("reset", engine::kReasonEngineUnavailable);
  struct Case {
    const char* what;
    Status stream, inspected;
    bool lost;
  } cases[] = {
      {"both fine", OkStatus(), OkStatus(), false},
      {"the stream broke", unreachable, OkStatus(), true},
      {"the inspect after it failed", OkStatus(), unreachable, true},
      {"aborted by us", UnavailableError("cut", "aborted"), OkStatus(), false},
      {"an engine error is an answer", OkStatus(), NotFoundError("no such container"), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(EngineLost(c.stream, c.inspected), c.lost);
  }
}

TEST(EngineLossTest, AnEndWithoutInitsWordLostItsOutputAndASignalIsNotBlamedOnTheProgram) {
  struct Case {
    const char* what;
    RunStatus status;
    int signal;
    bool reported_by_init;
    RunStatus after;
    bool output_lost;
    std::string reason;
  } cases[] = {
      {"exit 0, trailer came", RunStatus::kSucceeded, 0, true, RunStatus::kSucceeded, false, ""},
      {"exit 3 from the engine", RunStatus::kFailed, 0, false, RunStatus::kFailed, true, ""},
      {"SIGKILL from the engine", RunStatus::kFailed, SIGKILL, false, RunStatus::kError, true,
       "engine_unavailable"},
      {"SIGKILL, trailer came", RunStatus::kFailed, SIGKILL, true, RunStatus::kFailed, false, ""},
      {"stopped at its deadline", RunStatus::kTimeout, SIGKILL, false, RunStatus::kTimeout, true,
       ""},
      {"oom", RunStatus::kOom, SIGKILL, false, RunStatus::kOom, true, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    RunResult r;
    r.status = c.status;
    r.signal = c.signal;
    r.reported_by_init = c.reported_by_init;
    NoteEngineLoss(r);
    EXPECT_EQ(r.status, c.after);
    EXPECT_EQ(r.output_lost, c.output_lost);
    EXPECT_EQ(r.error.reason(), c.reason);
  }
}

}  // namespace
}  // namespace coderunner::isolation
