#include "job_store_contract.h"

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/store/sqlite/sqlite_job_store.h"

namespace coderunner::store {
namespace {

// A new empty directory under gtest's temporary directory.
StatusOr<std::string> MakeTempDir() {
  std::string tmpl = ::testing::TempDir() + "/coderunner-store-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) return InternalError("mkdtemp " + tmpl + " failed");
  return std::string(buf.data());
}

// sqlite: a new database file in a new temporary directory, removed with
// the last reference to `backing`.
StatusOr<OpenedStore> OpenSqlite(RequestRedactor redactor) {
  CR_ASSIGN_OR_RETURN(std::string dir, MakeTempDir());
  std::shared_ptr<void> backing(new std::string(dir), [](void* p) {
    auto* owned = static_cast<std::string*>(p);
    std::error_code ignored;
    std::filesystem::remove_all(*owned, ignored);
    delete owned;
  });
  const std::string path = dir + "/state/jobs.db";
  OpenedStore opened;
  CR_ASSIGN_OR_RETURN(std::unique_ptr<SqliteJobStore> store, SqliteJobStore::Open(path, redactor));
  opened.parts = PartsOf(std::move(store));
  opened.reopen = [path, backing](RequestRedactor r) -> StatusOr<StoreParts> {
    CR_ASSIGN_OR_RETURN(std::unique_ptr<SqliteJobStore> store, SqliteJobStore::Open(path, r));
    return PartsOf(std::move(store));
  };
  opened.backing = std::move(backing);
  return opened;
}

}  // namespace

StoreBackend SqliteBackend() { return {"sqlite", OpenSqlite}; }

std::string BackendName(const ::testing::TestParamInfo<StoreBackend>& info) {
  return info.param.name;
}

JobRecord MakeJob(const std::string& id, int64_t created_at_ms, const std::string& tenant) {
  JobRecord job;
  job.id = id;
  job.tenant = tenant;
  job.status = JobStatus::kQueued;
  job.language = "python";
  job.request_json = kRequestJson;
  job.created_at_ms = created_at_ms;
  job.transitions = {{JobStatus::kQueued, created_at_ms}};
  return job;
}

void ExpectSameTransitions(const std::vector<store::Transition>& got,
                           const std::vector<store::Transition>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got[i].status, want[i].status);
    EXPECT_EQ(got[i].at_ms, want[i].at_ms);
  }
}

void JobStoreContractFixture::SetUp() { OpenFresh(nullptr); }

void JobStoreContractFixture::TearDown() {
  store_.reset();
  parts_.clear();
  reopen_ = nullptr;
  backing_.reset();
}

void JobStoreContractFixture::OpenFresh(RequestRedactor redactor) {
  TearDown();
  auto opened = GetParam().open(std::move(redactor));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  backing_ = std::move(opened->backing);
  reopen_ = std::move(opened->reopen);
  store_ = std::move(opened->parts.jobs);
  ASSERT_NE(store_, nullptr);
  parts_[store_.get()] = std::move(opened->parts);
}

StatusOr<std::unique_ptr<JobStore>> JobStoreContractFixture::OpenAgain() {
  if (!reopen_) return FailedPreconditionError(GetParam().name + " cannot reopen a store");
  CR_ASSIGN_OR_RETURN(StoreParts parts, reopen_(nullptr));
  std::unique_ptr<JobStore> store = std::move(parts.jobs);
  parts_[store.get()] = std::move(parts);
  return store;
}

const StoreParts& JobStoreContractFixture::Parts(const JobStore* store) const {
  static const StoreParts* const kNone = new StoreParts();  // Never destroyed.
  auto it = parts_.find(store != nullptr ? store : store_.get());
  return it != parts_.end() ? it->second : *kNone;
}

void JobStoreContractFixture::Insert(std::vector<JobRecord> jobs) {
  Status s = store_->Insert(jobs);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

void JobStoreContractFixture::MoveTo(const std::string& id, JobStatus to, int64_t at_ms) {
  Status s = store_->Transition(id, to, at_ms);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

JobRecord JobStoreContractFixture::MustGet(const std::string& id) {
  auto job = store_->Get(id, "");
  EXPECT_TRUE(job.ok()) << job.status().ToString();
  return job.ok() ? *job : JobRecord{};
}

std::vector<std::string> JobStoreContractFixture::ListIds(ListFilter filter) {
  std::vector<std::string> ids;
  auto page = store_->List(filter);
  EXPECT_TRUE(page.ok()) << page.status().ToString();
  if (!page.ok()) return ids;
  for (const JobRecord& job : page->jobs) ids.push_back(job.id);
  return ids;
}

}  // namespace coderunner::store
