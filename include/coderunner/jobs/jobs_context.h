// JobsContext: the collaborators every part of the jobs module shares.
#ifndef CODERUNNER_JOBS_JOBS_CONTEXT_H_
#define CODERUNNER_JOBS_JOBS_CONTEXT_H_

#include "coderunner/common/metrics.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/images.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_channel.h"
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
  isolation::ContainerRunner* runner;
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

// Milliseconds since the Unix epoch.
int64_t NowMs();

// Declares every metric family the jobs module writes.
void DeclareJobMetrics(MetricsRegistry& metrics);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOBS_CONTEXT_H_
