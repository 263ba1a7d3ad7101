// DROP AT MERGE: a stand-in for PgJobStore so that this branch links before
// the real implementation lands. Open always fails Unavailable.
#include <memory>

#include "coderunner/store/pg_job_store.h"

namespace coderunner::store {
namespace {

inline constexpr const char* kStubMessage = "PgJobStore is not built into this branch";

Status Stub() { return UnavailableError(kStubMessage, kReasonStoreUnavailable); }

}  // namespace

class PgPool {};
struct PgJobStore::SoleNodeLock {};

StatusOr<std::unique_ptr<PgJobStore>> PgJobStore::Open(const PgStoreOptions& /*options*/,
                                                       RequestRedactor /*redactor*/) {
  return Stub();
}

PgJobStore::PgJobStore(std::unique_ptr<PgPool> pool, RequestRedactor redactor)
    : pool_(std::move(pool)), redactor_(std::move(redactor)) {}
PgJobStore::~PgJobStore() = default;

Status PgJobStore::Insert(const std::vector<JobRecord>& /*records*/) { return Stub(); }
Status PgJobStore::Transition(const std::string& /*id*/, JobStatus /*to*/, int64_t /*at_ms*/,
                              const std::string& /*result_json*/,
                              const std::string& /*image_digest*/) {
  return Stub();
}
Status PgJobStore::UpdateProgress(const std::string& /*id*/, const std::string& /*progress*/) {
  return Stub();
}
StatusOr<JobRecord> PgJobStore::Get(const std::string& /*id*/, const std::string& /*tenant*/) {
  return Stub();
}
StatusOr<ListPage> PgJobStore::List(const ListFilter& /*filter*/) { return Stub(); }
StatusOr<std::vector<JobRecord>> PgJobStore::NonTerminal() { return Stub(); }
StatusOr<std::vector<std::string>> PgJobStore::PurgeFinishedBefore(int64_t /*before_ms*/) {
  return Stub();
}
StatusOr<std::optional<std::string>> PgJobStore::CacheGet(const std::string& /*key*/,
                                                          int64_t /*now_ms*/) {
  return Stub();
}
Status PgJobStore::CachePut(const std::string& /*key*/, const std::string& /*result_json*/,
                            int64_t /*expires_at_ms*/) {
  return Stub();
}
StatusOr<int> PgJobStore::CachePurgeExpired(int64_t /*now_ms*/) { return Stub(); }
Status PgJobStore::Ping() { return Stub(); }
Status PgJobStore::HoldSoleNode() { return Stub(); }

}  // namespace coderunner::store
