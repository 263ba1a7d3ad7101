// ForwardingStore: a JobStore that forwards every call to another, for
// tests that watch or break one call of a real store.
#ifndef CODERUNNER_TESTS_UNIT_JOBS_FORWARDING_STORE_H_
#define CODERUNNER_TESTS_UNIT_JOBS_FORWARDING_STORE_H_

#include <optional>
#include <string>
#include <vector>

#include "coderunner/store/job_store.h"

namespace coderunner::testutil {

// Override what the test is about; the rest goes to `inner`.
class ForwardingStore : public store::JobStore {
 public:
  using JobRecord = store::JobRecord;
  using JobStatus = store::JobStatus;

  explicit ForwardingStore(store::JobStore& inner) : inner_(inner) {}

  StatusOr<std::vector<JobRecord>> Claim(const std::string& node, int max, int64_t now_ms,
                                         int64_t lease_ms) override {
    return inner_.Claim(node, max, now_ms, lease_ms);
  }
  Status Insert(const std::vector<JobRecord>& records) override { return inner_.Insert(records); }
  Status Transition(const std::string& id, JobStatus to, int64_t at_ms,
                    const std::string& result_json, const std::string& image_digest,
                    const std::string& owner, int64_t artifact_bytes) override {
    return inner_.Transition(id, to, at_ms, result_json, image_digest, owner, artifact_bytes);
  }
  StatusOr<std::vector<std::string>> RenewLeases(const std::string& node,
                                                 const std::vector<std::string>& ids,
                                                 int64_t now_ms, int64_t lease_ms) override {
    return inner_.RenewLeases(node, ids, now_ms, lease_ms);
  }
  StatusOr<store::ExpiredLeases> RequeueExpired(int64_t now_ms, int max_attempts,
                                                const std::string& result) override {
    return inner_.RequeueExpired(now_ms, max_attempts, result);
  }
  Status UpdateProgress(const std::string& id, const std::string& progress) override {
    return inner_.UpdateProgress(id, progress);
  }
  StatusOr<JobRecord> Get(const std::string& id, const std::string& tenant) override {
    return inner_.Get(id, tenant);
  }
  StatusOr<store::ListPage> List(const store::ListFilter& filter) override {
    return inner_.List(filter);
  }
  StatusOr<std::vector<JobRecord>> NonTerminal() override { return inner_.NonTerminal(); }
  StatusOr<std::vector<std::string>> PurgeFinishedBefore(int64_t before_ms) override {
    return inner_.PurgeFinishedBefore(before_ms);
  }
  StatusOr<store::Footprint> TenantFootprint(const std::string& tenant) override {
    return inner_.TenantFootprint(tenant);
  }
  StatusOr<std::vector<std::string>> PurgeBeyond(const std::string& tenant,
                                                 const store::FootprintBounds& bounds) override {
    return inner_.PurgeBeyond(tenant, bounds);
  }
  StatusOr<std::optional<std::string>> CacheGet(const std::string& key, int64_t now_ms) override {
    return inner_.CacheGet(key, now_ms);
  }
  Status CachePut(const std::string& key, const std::string& result_json,
                  int64_t expires_at_ms) override {
    return inner_.CachePut(key, result_json, expires_at_ms);
  }
  StatusOr<int> CachePurgeExpired(int64_t now_ms) override {
    return inner_.CachePurgeExpired(now_ms);
  }
  Status Ping() override { return inner_.Ping(); }

 protected:
  store::JobStore& inner_;
};

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_JOBS_FORWARDING_STORE_H_
