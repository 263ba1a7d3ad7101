#include "api/judge0_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace coderunner::api {
namespace {

using nlohmann::json;

TEST(Judge0ToJobTest, ASubmissionIsAJobInCoderunnersUnits) {
  config::Config config = config::DefaultConfig();
  auto job = Judge0ToJob({{"source_code", "print(1)"},
                          {"language_id", 71},
                          {"stdin", "in"},
                          {"command_line_arguments", " a  b "},
                          {"cpu_time_limit", 1.5},
                          {"wall_time_limit", 3},
                          {"memory_limit", 65536},
                          {"max_processes_and_or_threads", 20},
                          {"expected_output", "1"},
                          {"stack_limit", 64000},
                          {"number_of_runs", 1}},
                         false, config);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(*job, (json{{"language", "python"},
                        {"code", "print(1)"},
                        {"stdin", "in"},
                        {"args", {"a", "b"}},
                        {"limits",
                         {{"cpu_ms", 1500},
                          {"timeout_ms", 3000},
                          {"memory_bytes", 65536LL * 1024},
                          {"pids", 20}}},
                        {"cases", {{{"stdin", "in"}, {"expected_output", "1"}}}}}));
  // Ruby's Base64.encode64 wraps its lines; older C and C++ ids are today's.
  auto b64 =
      Judge0ToJob({{"source_code", "aW50IG1h\naW4oKSB7fQ==\n"}, {"language_id", 49}}, true, config);
  ASSERT_TRUE(b64.ok()) << b64.status().ToString();
  EXPECT_EQ((*b64)["code"], "int main() {}");
  EXPECT_EQ((*b64)["language"], "c");
}

TEST(Judge0ToJobTest, WhatJudge0WouldRefuseNamesTheField) {
  config::Config config = config::DefaultConfig();
  struct Row {
    json submission;
    bool base64;
    json want;
  };
  const Row rows[] = {
      {{{"source_code", "x"}}, false, {{"language_id", {"can't be blank"}}}},
      {{{"source_code", "x"}, {"language_id", 4}},
       false,
       {{"language_id", {"language with id 4 doesn't exist"}}}},
      {{{"language_id", 71}}, false, {{"source_code", {"can't be blank"}}}},
      {{{"source_code", "%%%"}, {"language_id", 71}},
       true,
       {{"source_code", {"is not valid base64"}}}},
      {{{"source_code", "x"}, {"language_id", 71}, {"memory_limit", -1}},
       false,
       {{"memory_limit", {"must be a number above 0"}}}},
      {{{"source_code", "x"}, {"language_id", 71}, {"additional_files", "UEsDBA=="}},
       false,
       {{"additional_files", {"is not available on this service"}}}},
      {{{"source_code", "x"}, {"language_id", 71}, {"redirect_stderr_to_stdout", true}},
       false,
       {{"redirect_stderr_to_stdout", {"is not available on this service"}}}},
  };
  for (const Row& row : rows) {
    auto job = Judge0ToJob(row.submission, row.base64, config);
    ASSERT_FALSE(job.ok()) << row.submission.dump();
    EXPECT_EQ(job.status().reason(), kReasonJudge0Invalid);
    EXPECT_EQ(Judge0InvalidJson(job.status()), row.want);
  }
}

TEST(Judge0SubmissionJsonTest, EachEndHasJudge0sStatus) {
  struct Row {
    store::JobStatus status;
    json result;
    int want;
  };
  const Row rows[] = {
      {store::JobStatus::kQueued, json(), 1},
      {store::JobStatus::kRunning, json(), 2},
      {store::JobStatus::kSucceeded, {{"status", "succeeded"}, {"exit_code", 0}}, 3},
      {store::JobStatus::kSucceeded,
       {{"status", "succeeded"}, {"judge", {{"verdict", "wrong_answer"}}}},
       4},
      {store::JobStatus::kTimeout, {{"status", "timeout"}}, 5},
      {store::JobStatus::kFailed,
       {{"status", "failed"}, {"error", {{"code", "compile_error"}, {"message", "x"}}}},
       6},
      {store::JobStatus::kFailed, {{"status", "failed"}, {"signal", "SIGSEGV"}}, 7},
      {store::JobStatus::kFailed, {{"status", "failed"}, {"signal", "SIGXFSZ"}}, 8},
      {store::JobStatus::kFailed, {{"status", "failed"}, {"signal", "SIGFPE"}}, 9},
      {store::JobStatus::kFailed, {{"status", "failed"}, {"signal", "SIGABRT"}}, 10},
      {store::JobStatus::kFailed, {{"status", "failed"}, {"exit_code", 2}}, 11},
      {store::JobStatus::kFailed, {{"status", "failed"}, {"signal", "SIGKILL"}}, 12},
      {store::JobStatus::kOom, {{"status", "oom"}}, 12},
      {store::JobStatus::kError, {{"status", "error"}}, 13},
      {store::JobStatus::kCancelled, {{"status", "cancelled"}}, 13},
  };
  for (const Row& row : rows) {
    store::JobRecord rec;
    rec.id = "job-1";
    rec.status = row.status;
    rec.result_json = row.result.is_null() ? "" : row.result.dump();
    json out = Judge0SubmissionJson(rec, false, {"status_id", "status"});
    EXPECT_EQ(out["status_id"], row.want) << row.result.dump();
    EXPECT_EQ(out["status"]["id"], row.want);
  }
}

TEST(Judge0FieldsTest, DefaultAllOrAList) {
  EXPECT_EQ(Judge0Fields("")->size(), 8u);
  EXPECT_GT(Judge0Fields("*")->size(), 8u);
  EXPECT_EQ(*Judge0Fields("stdout,status_id"), (std::set<std::string>{"stdout", "status_id"}));
  auto bad = Judge0Fields("stdout,shoe_size");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Judge0InvalidJson(bad.status()), (json{{"fields", {"unknown field shoe_size"}}}));
  EXPECT_EQ(Judge0StatusesJson().size(), 14u);
}

}  // namespace
}  // namespace coderunner::api
