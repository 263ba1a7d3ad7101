// JobDispatch: the seam where one node and a fleet of nodes differ. A
// JobService has one mode; how an accepted job is admitted and committed,
// how it reaches a worker, how a cancel, a wait and a drain reach the node
// that holds the job, and how a restart recovers, are its dispatch's.
//
// Two implementations: LocalDispatch (local_dispatch.h), one node whose
// queue is in memory; and the fleet's (src/fleet/), whose queue is the
// shared store. The composition root chooses one.
#ifndef CODERUNNER_JOBS_JOB_DISPATCH_H_
#define CODERUNNER_JOBS_JOB_DISPATCH_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/store/job_notices.h"
#include "coderunner/store/job_record.h"

namespace coderunner::jobs {

class JobExecutor;
class TenantFootprint;

// Every method is thread-safe unless it says otherwise. Errors are those of
// the store, and the 429s of jobs::QueueAdmission (queue_admission.h).
class JobDispatch {
 public:
  virtual ~JobDispatch() = default;

  // Called once by the JobService that uses this dispatch, before any
  // other method: the jobs running on this node (`executor`) and the
  // bounds of each tenant's finished jobs (`footprint`). Both outlive it.
  virtual void Attach(const JobExecutor* executor, const TenantFootprint* footprint) = 0;

  // The node name the executor fences its transitions by, and the notices
  // it publishes through: "" and nullptr on one node.
  virtual std::string fence_node() const = 0;
  virtual store::JobNotices* executor_notices() = 0;

  // Start, phase 1 (the store only), before the workers run: what was
  // queued is made ready to run; the jobs this node was running when it
  // stopped are kept for phase 2. Fails only if the store cannot be read.
  virtual Status Recover() = 0;
  // Start, after the workers started (the fleet starts claiming).
  virtual void Started() = 0;
  // Start, phase 2, from a background thread while jobs already run, again
  // and again until it succeeds (Unavailable while the engine is down):
  // the jobs phase 1 kept are settled and orphan containers removed.
  virtual Status RecoverInterrupted() = 0;

  // Admission of one accepted job of `tenant` (queued, or a cache hit),
  // once the service checked that it is not draining; `batch_hits` are the
  // cache hits of the same batch, counted as queued. Reserve may hold a
  // slot; Commit writes `rec` (queued or terminal) to the store, within
  // the bounds, and gives the slot back if it fails. Between them the
  // service opens the job's channel.
  virtual Status Reserve(const std::string& tenant, const config::TierConfig* tier,
                         size_t batch_hits) = 0;
  virtual Status Commit(const store::JobRecord& rec, const config::TierConfig* tier,
                        size_t batch_hits) = 0;
  // A reserved job that will never wait for a worker (a cache hit, after
  // Reserve and before Commit): its slot is given back.
  virtual void Unreserve() = 0;
  // A committed queued job goes to a worker (here, or on any node).
  virtual void Dispatch(const store::JobRecord& rec, const config::TierConfig* tier) = 0;

  // A worker of this node is done with job `id`.
  virtual void Released(const std::string& id) = 0;
  // The store took the user's cancel of `rec` (non-terminal before it):
  // the job stops wherever it is queued or runs, and its waiters here wake.
  virtual void Cancelled(const store::JobRecord& rec) = 0;
  // The channel to wait on or follow for job `id`: nullptr when the job is
  // terminal or unknown. A fleet opens one here for a job of another node.
  virtual std::shared_ptr<JobChannel> Follow(const std::string& id) = 0;

  // Graceful shutdown, from one thread: StopTaking before the local queue
  // closes (nothing more is claimed); GiveBack with the ids the closed
  // queue dropped (a fleet puts them back in the shared queue).
  virtual void StopTaking() = 0;
  virtual void GiveBack(const std::vector<std::string>& dropped) = 0;
  // After the workers stopped: stops the dispatch's own threads.
  virtual void Stop() = 0;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_DISPATCH_H_
