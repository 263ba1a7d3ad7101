// The JobStore contract (job_store.h): List (pages, cursors, tenants), NonTerminal and
// PurgeFinishedBefore. Runs over every ContractBackends() backend.
#include <gtest/gtest.h>
#include <stdio.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "job_store_contract.h"

namespace coderunner::store {
namespace {

class JobStoreListContractTest : public JobStoreContractFixture {};

INSTANTIATE_TEST_SUITE_P(Backends, JobStoreListContractTest,
                         ::testing::ValuesIn(ContractBackends()), BackendName);

// --- List ------------------------------------------------------------------------

TEST_P(JobStoreListContractTest, ListPaginatesNewestFirstWithoutDuplicates) {
  // 120 jobs; created_at repeats in threes so the id breaks ties. Inserted
  // out of order.
  std::vector<JobRecord> all;
  for (int i = 0; i < 120; ++i) {
    char id[32];
    snprintf(id, sizeof(id), "job-%03d", (i * 37) % 120);
    all.push_back(MakeJob(id, 1000 + ((i * 37) % 120) / 3));
  }
  Insert(all);
  std::vector<std::tuple<int64_t, std::string>> want;
  for (const JobRecord& job : all) want.emplace_back(job.created_at_ms, job.id);
  std::sort(want.rbegin(), want.rend());

  std::vector<std::tuple<int64_t, std::string>> got;
  std::vector<size_t> page_sizes;
  ListFilter filter;
  filter.limit = 50;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = store_->List(filter);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    page_sizes.push_back(page->jobs.size());
    for (const JobRecord& job : page->jobs) got.emplace_back(job.created_at_ms, job.id);
    if (page->next_cursor.empty()) break;
    filter.cursor = page->next_cursor;
  }
  EXPECT_EQ(page_sizes, (std::vector<size_t>{50, 50, 20}));
  EXPECT_EQ(got, want);
  std::set<std::string> unique;
  for (const auto& [ms, id] : got) unique.insert(id);
  EXPECT_EQ(unique.size(), 120u);
}

TEST_P(JobStoreListContractTest, ListOfExactlyOnePageHasNoCursor) {
  std::vector<JobRecord> jobs;
  for (int i = 0; i < 50; ++i) jobs.push_back(MakeJob("job-" + std::to_string(i), i));
  Insert(jobs);
  ListFilter filter;
  filter.limit = 50;
  auto page = store_->List(filter);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->jobs.size(), 50u);
  EXPECT_EQ(page->next_cursor, "");
}

TEST_P(JobStoreListContractTest, ListOfTenantWithoutJobsIsEmpty) {
  auto page = store_->List(ListFilter{});
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->jobs.empty());
  EXPECT_EQ(page->next_cursor, "");
}

TEST_P(JobStoreListContractTest, ListIsScopedToTenant) {
  Insert({MakeJob("job-a1", 1, "acme"), MakeJob("job-b1", 2, "beta"), MakeJob("job-a2", 3, "acme"),
          MakeJob("job-d1", 4)});
  ListFilter filter;
  filter.tenant = "acme";
  EXPECT_EQ(ListIds(filter), (std::vector<std::string>{"job-a2", "job-a1"}));
  filter.tenant = "beta";
  EXPECT_EQ(ListIds(filter), (std::vector<std::string>{"job-b1"}));
  EXPECT_EQ(ListIds(ListFilter{}), (std::vector<std::string>{"job-d1"}));
  filter.tenant = "nobody";
  EXPECT_TRUE(ListIds(filter).empty());
}

TEST_P(JobStoreListContractTest, ListFiltersByStatusAcrossPages) {
  std::vector<JobRecord> jobs;
  for (int i = 0; i < 30; ++i) {
    char id[32];
    snprintf(id, sizeof(id), "job-%02d", i);
    jobs.push_back(MakeJob(id, 1000 + i));
  }
  Insert(jobs);
  for (int i = 0; i < 30; i += 3) MoveTo(jobs[i].id, JobStatus::kRunning, 2000);  // 10 running.

  ListFilter filter;
  filter.status = JobStatus::kRunning;
  filter.limit = 4;
  std::vector<std::string> got;
  std::vector<size_t> page_sizes;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = store_->List(filter);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    page_sizes.push_back(page->jobs.size());
    for (const JobRecord& job : page->jobs) {
      EXPECT_EQ(job.status, JobStatus::kRunning);
      got.push_back(job.id);
    }
    if (page->next_cursor.empty()) break;
    filter.cursor = page->next_cursor;
  }
  EXPECT_EQ(page_sizes, (std::vector<size_t>{4, 4, 2}));
  EXPECT_EQ(got, (std::vector<std::string>{"job-27", "job-24", "job-21", "job-18", "job-15",
                                           "job-12", "job-09", "job-06", "job-03", "job-00"}));

  filter = ListFilter{};
  filter.status = JobStatus::kSucceeded;
  EXPECT_TRUE(ListIds(filter).empty());
}

TEST_P(JobStoreListContractTest, ListClampsLimitToOneThroughFiveHundred) {
  std::vector<JobRecord> jobs;
  for (int i = 0; i < 510; ++i) jobs.push_back(MakeJob("job-" + std::to_string(i), i));
  Insert(jobs);
  struct Case {
    int limit;
    size_t rows;
  };
  for (const Case& c : std::vector<Case>{
           {-5, 1}, {0, 1}, {1, 1}, {499, 499}, {500, 500}, {501, 500}, {100000, 500}}) {
    SCOPED_TRACE(c.limit);
    ListFilter filter;
    filter.limit = c.limit;
    auto page = store_->List(filter);
    ASSERT_TRUE(page.ok());
    EXPECT_EQ(page->jobs.size(), c.rows);
    EXPECT_NE(page->next_cursor, "");
  }
}

TEST_P(JobStoreListContractTest, ListRowsOmitRequestAndResultJson) {
  JobRecord job = MakeJob("job-1", 100);
  job.limits_json = R"({"wall_ms":1})";
  Insert({job});
  ASSERT_TRUE(store_->Transition("job-1", JobStatus::kSucceeded, 200, R"({"ok":1})", "").ok());
  auto page = store_->List(ListFilter{});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->jobs.size(), 1u);
  EXPECT_EQ(page->jobs[0].request_json, "");
  EXPECT_EQ(page->jobs[0].result_json, "");
  EXPECT_EQ(page->jobs[0].limits_json, R"({"wall_ms":1})");
  EXPECT_EQ(page->jobs[0].status, JobStatus::kSucceeded);
  EXPECT_EQ(page->jobs[0].transitions.size(), 2u);
}

TEST_P(JobStoreListContractTest, ListWithMalformedCursorIsInvalidArgument) {
  Insert({MakeJob("job-1", 100)});
  const std::vector<std::string> cursors = {
      "garbage",
      "_job-1",
      "100_",
      "abc_job-1",
      "10a_job-1",
      "-_job-1",
      "+5_job-1",
      "99999999999999999999_job-1",  // Overflows int64.
      "100_job 1",
      std::string("100_job\0x", 9),
      "100_job\n",
      " 100_job-1",
      "100_j\xc3\xa9",
  };
  for (const std::string& cursor : cursors) {
    SCOPED_TRACE(cursor);
    ListFilter filter;
    filter.cursor = cursor;
    auto page = store_->List(filter);
    EXPECT_EQ(page.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(page.status().reason(), "invalid_cursor");
  }
}

TEST_P(JobStoreListContractTest, ListCursorIsStableWhenNewJobsArrive) {
  Insert({MakeJob("job-1", 1), MakeJob("job-2", 2), MakeJob("job-3", 3)});
  ListFilter filter;
  filter.limit = 2;
  auto first = store_->List(filter);
  ASSERT_TRUE(first.ok());
  Insert({MakeJob("job-4", 4)});  // Newer: must not appear on later pages.
  filter.cursor = first->next_cursor;
  EXPECT_EQ(ListIds(filter), (std::vector<std::string>{"job-1"}));
}

// --- NonTerminal and PurgeFinishedBefore -----------------------------------------

TEST_P(JobStoreListContractTest, NonTerminalReturnsQueuedAndRunningOfAllTenantsOldestFirst) {
  Insert({MakeJob("job-q-new", 500, "acme"), MakeJob("job-r-old", 100, "beta"),
          MakeJob("job-done", 50), MakeJob("job-q-old", 200), MakeJob("job-cancel", 300)});
  MoveTo("job-r-old", JobStatus::kRunning, 600);
  MoveTo("job-done", JobStatus::kRunning, 600);
  MoveTo("job-done", JobStatus::kSucceeded, 700);
  MoveTo("job-cancel", JobStatus::kCancelled, 700);

  auto jobs = store_->NonTerminal();
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  std::vector<std::string> ids;
  for (const JobRecord& job : *jobs) ids.push_back(job.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"job-r-old", "job-q-old", "job-q-new"}));
  for (const JobRecord& job : *jobs) {
    EXPECT_EQ(job.request_json, kRequestJson) << "whole record";
  }
}

TEST_P(JobStoreListContractTest, PurgeFinishedBeforeRemovesOnlyOldTerminalJobs) {
  Insert({MakeJob("job-old-ok", 1), MakeJob("job-old-cancel", 2), MakeJob("job-new-ok", 3),
          MakeJob("job-queued", 4), MakeJob("job-running", 5), MakeJob("job-at-cutoff", 6)});
  MoveTo("job-old-ok", JobStatus::kSucceeded, 100);
  MoveTo("job-old-cancel", JobStatus::kCancelled, 200);
  MoveTo("job-new-ok", JobStatus::kFailed, 2000);
  MoveTo("job-running", JobStatus::kRunning, 10);
  MoveTo("job-at-cutoff", JobStatus::kTimeout, 1000);

  auto purged = store_->PurgeFinishedBefore(1000);
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  std::vector<std::string> ids = *purged;
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"job-old-cancel", "job-old-ok"}));
  for (const char* gone : {"job-old-ok", "job-old-cancel"}) {
    EXPECT_EQ(store_->Get(gone, "").status().code(), StatusCode::kNotFound) << gone;
  }
  for (const char* kept : {"job-new-ok", "job-queued", "job-running", "job-at-cutoff"}) {
    EXPECT_TRUE(store_->Get(kept, "").ok()) << kept;
  }
  auto again = store_->PurgeFinishedBefore(1000);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
}

}  // namespace
}  // namespace coderunner::store
