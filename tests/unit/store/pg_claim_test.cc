// PgJobStore::Claim's single statement (one UPDATE ... RETURNING that
// appends the running transition to the stored text) on a real PostgreSQL
// 15, and the durability setting of the TempPostgres that queue_bench uses.
// The claim contract itself is tested over both stores elsewhere.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "coderunner/store/postgres/pg_job_store.h"
#include "pg/temp_postgres.h"
#include "store/job_row_codec.h"
#include "store/postgres/pg_connection.h"

namespace coderunner::store {
namespace {

using coderunner::testing::PgDurability;
using coderunner::testing::SharedPostgres;
using coderunner::testing::TempPostgres;

// The text of one value of a one-row query on `conninfo`, outside the store.
std::string QueryText(const std::string& conninfo, const std::string& sql) {
  auto conn = PgConnection::Connect(conninfo, "", 2000);
  if (!conn.ok()) return "(" + conn.status().message() + ")";
  auto result = (*conn)->Exec(sql, {}, "test query");
  if (!result.ok()) return "(" + result.status().message() + ")";
  return result->rows() == 1 ? result->Text(0, 0) : "(no row)";
}

struct ClaimCase {
  std::string name;
  std::vector<Transition> before;  // Stored transitions of the queued job.
  int attempt;
};

class PgClaimTest : public ::testing::TestWithParam<ClaimCase> {};

// The stored text after the claim is exactly what the codec writes for the
// record the claim returned, and that record is the row Get reads back.
TEST_P(PgClaimTest, AppendsTheRunningTransitionAsTheCodecWritesIt) {
  const ClaimCase& c = GetParam();
  auto conninfo = SharedPostgres().CreateDatabase();
  ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
  PgStoreOptions options;
  options.conninfo = *conninfo;
  auto store = PgJobStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  JobRecord job;
  job.id = "job-00000000000000000000000a";
  job.language = "python";
  job.created_at_ms = 1000;
  job.attempt = c.attempt;
  job.transitions = c.before;
  ASSERT_TRUE((*store)->Insert({job}).ok());

  auto claimed = (*store)->Claim("node-a", 8, 5000, 15000);
  ASSERT_TRUE(claimed.ok()) << claimed.status().message();
  ASSERT_EQ(claimed->size(), 1u);
  std::vector<Transition> want = c.before;
  want.push_back({JobStatus::kRunning, 5000});
  const JobRecord& got = (*claimed)[0];
  ASSERT_EQ(got.transitions.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got.transitions[i].status, want[i].status) << i;
    EXPECT_EQ(got.transitions[i].at_ms, want[i].at_ms) << i;
  }
  EXPECT_EQ(got.status, JobStatus::kRunning);
  EXPECT_EQ(got.started_at_ms, 5000);
  EXPECT_EQ(got.owner, "node-a");
  EXPECT_EQ(got.lease_expires_at_ms, 20000);
  EXPECT_EQ(got.attempt, c.attempt);
  auto text = TransitionsToJson(want);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(QueryText(*conninfo, "SELECT transitions FROM jobs WHERE id = '" + job.id + "'"),
            *text);
  auto again = (*store)->Get(job.id, "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->transitions.size(), want.size());
  store->reset();
  EXPECT_TRUE(SharedPostgres().DropDatabase(*conninfo).ok());
}

INSTANTIATE_TEST_SUITE_P(Stored, PgClaimTest,
                         ::testing::Values(ClaimCase{"none", {}, 1},
                                           ClaimCase{"queued", {{JobStatus::kQueued, 1000}}, 1},
                                           ClaimCase{"requeued",
                                                     {{JobStatus::kQueued, 1000},
                                                      {JobStatus::kRunning, 2000},
                                                      {JobStatus::kQueued, 3000}},
                                                     2}),
                         [](const ::testing::TestParamInfo<ClaimCase>& info) {
                           return info.param.name;
                         });

struct DurabilityCase {
  std::string name;
  PgDurability durability;
  std::string fsync;               // SHOW fsync.
  std::string synchronous_commit;  // SHOW synchronous_commit.
};

class TempPostgresDurabilityTest : public ::testing::TestWithParam<DurabilityCase> {};

// Tests run fsync=off; queue_bench's cluster commits as production does.
TEST_P(TempPostgresDurabilityTest, StartsWithTheCommitSettingsAsked) {
  const DurabilityCase& c = GetParam();
  auto pg = TempPostgres::Start(c.durability);
  ASSERT_TRUE(pg.ok()) << pg.status().message();
  EXPECT_EQ(QueryText((*pg)->Conninfo(), "SHOW fsync"), c.fsync);
  EXPECT_EQ(QueryText((*pg)->Conninfo(), "SHOW synchronous_commit"), c.synchronous_commit);
  ASSERT_TRUE((*pg)->Stop().ok());
  ASSERT_TRUE((*pg)->StartAgain().ok());
  EXPECT_EQ(QueryText((*pg)->Conninfo(), "SHOW fsync"), c.fsync) << "after StartAgain";
}

INSTANTIATE_TEST_SUITE_P(
    Settings, TempPostgresDurabilityTest,
    ::testing::Values(DurabilityCase{"fast", PgDurability::kFast, "off", "on"},
                      DurabilityCase{"durable", PgDurability::kDurable, "on", "on"}),
    [](const ::testing::TestParamInfo<DurabilityCase>& info) { return info.param.name; });

}  // namespace
}  // namespace coderunner::store
