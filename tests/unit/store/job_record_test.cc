#include "coderunner/store/job_record.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace coderunner::store {
namespace {

struct StatusCase {
  JobStatus status;
  std::string_view name;
  bool terminal;
};

const std::vector<StatusCase> kStatuses = {
    {JobStatus::kQueued, "queued", false},      {JobStatus::kRunning, "running", false},
    {JobStatus::kSucceeded, "succeeded", true}, {JobStatus::kFailed, "failed", true},
    {JobStatus::kTimeout, "timeout", true},     {JobStatus::kOom, "oom", true},
    {JobStatus::kCancelled, "cancelled", true}, {JobStatus::kError, "error", true},
};

TEST(JobStatusTest, EveryStatusHasItsDocumentedName) {
  for (const StatusCase& c : kStatuses) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(JobStatusName(c.status), c.name);
  }
}

TEST(JobStatusTest, NamesAreDistinct) {
  std::set<std::string_view> names;
  for (const StatusCase& c : kStatuses) names.insert(JobStatusName(c.status));
  EXPECT_EQ(names.size(), kStatuses.size());
}

TEST(JobStatusTest, ParseIsTheInverseOfName) {
  for (const StatusCase& c : kStatuses) {
    SCOPED_TRACE(c.name);
    auto parsed = ParseJobStatus(JobStatusName(c.status));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, c.status);
  }
}

TEST(JobStatusTest, ParseRejectsAnythingButAnExactName) {
  const std::vector<std::string> names = {"",
                                          "Queued",
                                          "QUEUED",
                                          " queued",
                                          "queued ",
                                          "success",
                                          "done",
                                          "canceled",
                                          "ok",
                                          "cancel",
                                          std::string("queued\0", 7)};
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(ParseJobStatus(name).has_value());
  }
}

TEST(JobStatusTest, OnlyQueuedAndRunningAreNotTerminal) {
  for (const StatusCase& c : kStatuses) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(IsTerminal(c.status), c.terminal);
  }
}

TEST(JobRecordTest, DefaultsAreAFreshQueuedFirstAttempt) {
  JobRecord r;
  EXPECT_EQ(r.tenant, "default");
  EXPECT_EQ(r.status, JobStatus::kQueued);
  EXPECT_EQ(r.attempt, 1);
  EXPECT_FALSE(r.cached);
  EXPECT_EQ(r.started_at_ms, 0);
  EXPECT_EQ(r.finished_at_ms, 0);
  EXPECT_TRUE(r.transitions.empty());
  EXPECT_TRUE(r.result_json.empty());
}

}  // namespace
}  // namespace coderunner::store
