// JobServiceImpl: the JobService (coderunner/jobs/job_service.h). Private
// to src/jobs: the rest of the tree sees only the abstract face.
#ifndef CODERUNNER_SRC_JOBS_JOB_SERVICE_IMPL_H_
#define CODERUNNER_SRC_JOBS_JOB_SERVICE_IMPL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/jobs/job_dispatch.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/jobs/tenant_footprint.h"
#include "coderunner/jobs/worker_pool.h"
#include "image_digests.h"
#include "job_janitor.h"

namespace coderunner::jobs {

class WebhookOutboxLoop;

class JobServiceImpl final : public JobService {
 public:
  explicit JobServiceImpl(JobServiceDeps deps);
  ~JobServiceImpl() override;

  bool ready() const override { return ready_; }
  int running() const override { return executor_.running(); }
  const wire::SubmissionRules& submission_rules() const override { return rules_; }
  const config::Config& config() const override { return *deps_.config; }
  bool intents_enabled() const override { return deps_.intents != nullptr; }
  Status Start() override;
  void Drain(std::chrono::milliseconds grace) override;
  void Stop() override;
  StatusOr<Accepted> Submit(const std::string& tenant, wire::JobSubmission submission,
                            const config::TierConfig* tier) override;
  std::vector<StatusOr<Accepted>> SubmitBatch(const std::string& tenant,
                                              std::vector<StatusOr<wire::JobSubmission>> entries,
                                              const config::TierConfig* tier) override;
  StatusOr<Accepted> SubmitRecord(store::JobRecord rec, const config::TierConfig* tier,
                                  int64_t output_cap) override;
  StatusOr<ExecuteAnswer> Execute(const std::string& tenant, wire::JobSubmission submission,
                                  const config::TierConfig* tier) override;
  StatusOr<store::JobRecord> Get(const std::string& id, const std::string& tenant) override;
  StatusOr<store::JobRecord> Wait(const std::string& id, const std::string& tenant,
                                  std::chrono::milliseconds timeout) override;
  StatusOr<std::vector<store::JobRecord>> WaitMany(const std::vector<std::string>& ids,
                                                   const std::string& tenant, bool all,
                                                   std::chrono::milliseconds timeout) override;
  StatusOr<store::JobRecord> Cancel(const std::string& id, const std::string& tenant) override;
  StatusOr<store::ListPage> List(const store::ListFilter& filter) override;
  StatusOr<Accepted> Replay(const std::string& id, const std::string& tenant,
                            const config::TierConfig* tier) override;
  std::shared_ptr<JobChannel> Channel(const std::string& id) const override;
  Status CheckVolume(const std::string& tenant, const config::TierConfig* tier,
                     const std::string& volume_id) const override;
  void UpdateScrapeGauges(MetricsRegistry& metrics) const override;

 private:
  // `batch_hits`: jobs of the same batch answered from the cache before
  // this one; they count against the tier's max_queued as if queued.
  // `fail_fast` jobs (a caller waits for them) hand the job as built to
  // the worker through their channel; others are rebuilt from the store
  // when they run, so that a full queue holds no request bodies in memory.
  StatusOr<Accepted> Accept(const std::string& tenant, wire::JobSubmission submission,
                            const std::string& pin_image, const std::string& replay_of,
                            bool fail_fast, const config::TierConfig* tier, size_t batch_hits = 0,
                            const nlohmann::json& pin_packages = nullptr);
  // Answers `rec` from the cached result `cached_json` if it holds a
  // cacheable status and the job is admitted (the dispatch's Reserve): the
  // record is committed as cached and returned. nullopt (and `rec` untouched) when
  // the entry is not one the cache may give; an admission or store error
  // otherwise.
  std::optional<StatusOr<Accepted>> AnswerFromCache(store::JobRecord& rec,
                                                    const std::string& cached_json,
                                                    const std::string& digest,
                                                    const config::TierConfig* tier,
                                                    size_t batch_hits);
  // SubmitRecord, with `batch_hits` counted as in Accept.
  // `prepared` (nullable) is handed to the worker through the channel.
  StatusOr<Accepted> Enqueue(store::JobRecord rec, const config::TierConfig* tier,
                             int64_t output_cap, size_t batch_hits,
                             std::unique_ptr<RunnableJob> prepared = nullptr);
  // Unavailable shutting_down (counted in coderunner_jobs_rejected_total)
  // while draining. Requires submit_mu_ held.
  Status Draining();
  // 507 disk_full (counted there too) while a directory the jobs write to
  // has less than jobs.disk_reserve_bytes free: room is kept for the jobs
  // already accepted, and every submission meets the same answer.
  Status RoomOnDisk();

  JobServiceDeps deps_;
  wire::SubmissionRules rules_;
  ImageDigests digests_;
  // deps.dispatch, or own_dispatch_ when that is null. Before executor_,
  // which fences and publishes as it says.
  std::unique_ptr<JobDispatch> own_dispatch_;
  JobDispatch* dispatch_;
  // Each tenant's finished jobs within its tier's bounds: after a job ends
  // here (the executor's, a cancel, a cache hit, recovery). Before
  // executor_, which uses it.
  TenantFootprint footprint_;
  JobExecutor executor_;
  WorkerPool pool_;
  JobJanitor janitor_;
  // With webhooks and a store that is a WebhookOutbox, on this node's
  // name (config instance).
  std::unique_ptr<WebhookOutboxLoop> webhook_loop_;
  std::atomic<bool> ready_{false};
  // Held shared by each submission from its draining_ check to its push,
  // and exclusively by Drain to close the queue: no job slips into a closed
  // queue unseen.
  std::shared_mutex submit_mu_;
  bool draining_ = false;  // Guarded by submit_mu_.
  std::mutex start_mu_;
  std::condition_variable start_cv_;
  bool stopping_ = false;
  std::thread starter_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_SRC_JOBS_JOB_SERVICE_IMPL_H_
