// JobsContext: the collaborators intent::IntentPipeline reaches the jobs
// module through. The jobs module's own classes each take only their own
// deps (JobServiceDeps, JobExecutorDeps, JobJanitorDeps, RecoveryDeps).
#ifndef CODERUNNER_JOBS_JOBS_CONTEXT_H_
#define CODERUNNER_JOBS_JOBS_CONTEXT_H_

#include "coderunner/common/metrics.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/images.h"
#include "coderunner/isolation/job_runner.h"
#include "coderunner/isolation/warm_pool.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_clock.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/webhook_sender.h"
#include "coderunner/store/job_store.h"
#include "coderunner/volumes/volume_service.h"

namespace coderunner::jobs {

class IntentRunner;

// Non-owning pointers; all outlive the jobs module. Each pointee is
// thread-safe.
struct JobsContext {
  const config::Config* config;
  store::JobStore* store;
  JobQueue* queue;
  JobHub* hub;
  isolation::JobRunner* runner;
  engine::ContainerClient* containers;
  engine::ImageClient* images;
  MetricsRegistry* metrics;
  WebhookSender* webhooks;
  // Persistent volumes; nullptr means requests naming a volume are refused.
  volumes::VolumeService* volumes = nullptr;
  // Execute mode; nullptr when no LLM is configured (intents end as error).
  IntentRunner* intents = nullptr;
  // The warm pool, whose containers recovery and the janitor leave alone;
  // nullptr when there is none.
  const isolation::WarmPool* pool = nullptr;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOBS_CONTEXT_H_
