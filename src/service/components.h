// Components: everything the running service is made of, owned in the
// order the startup steps build it (so destroyed in the reverse order).
#ifndef CODERUNNER_SERVICE_COMPONENTS_H_
#define CODERUNNER_SERVICE_COMPONENTS_H_

#include <functional>
#include <memory>
#include <string>

#include "coderunner/api/server.h"
#include "coderunner/auth/authenticator.h"
#include "coderunner/auth/rate_limiter.h"
#include "coderunner/common/metrics.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/counting_transport.h"
#include "coderunner/engine/curl_transport.h"
#include "coderunner/engine/images.h"
#include "coderunner/engine/system.h"
#include "coderunner/engine/volumes.h"
#include "coderunner/intent/agent_catalog.h"
#include "coderunner/intent/intent_pipeline.h"
#include "coderunner/intent/openai_client.h"
#include "coderunner/isolation/compiling_runner.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/isolation/native_runner.h"
#include "coderunner/isolation/uid_pool.h"
#include "coderunner/isolation/warm_pool.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_dispatch.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/jobs/webhook_sender.h"
#include "coderunner/judge/submission_judge.h"
#include "coderunner/packages/package_installer.h"
#include "coderunner/sandboxes/sandbox_files.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "coderunner/sandboxes/sandbox_processes.h"
#include "coderunner/sandboxes/sandbox_store.h"
#include "coderunner/store/job_notices.h"
#include "coderunner/store/shared_rate_limiter.h"
#include "coderunner/store/store_parts.h"
#include "coderunner/volumes/volume_service.h"
#include "node_heartbeat.h"

namespace coderunner::service {

// Filled in by the startup steps (startup_steps.h), each member by exactly
// one step; a member is null until its step ran. Members are declared in
// build order: the destructor tears down the later ones first.
struct Components {
  explicit Components(config::Config c) : cfg(std::move(c)) {}

  config::Config cfg;
  std::string socket;     // The engine socket ("engine socket").
  std::string init_path;  // The coderunner-init binary ("init binary").

  // "engine clients"
  std::unique_ptr<MetricsRegistry> metrics;
  std::unique_ptr<engine::CurlTransport> curl_transport;
  std::unique_ptr<engine::CountingTransport> transport;
  std::unique_ptr<engine::ContainerClient> containers;
  std::unique_ptr<engine::ImageClient> images;
  std::unique_ptr<engine::SystemClient> system;
  std::unique_ptr<engine::VolumeClient> volume_client;
  std::unique_ptr<isolation::UidPool> uids;
  std::unique_ptr<volumes::VolumeService> volume_service;
  std::unique_ptr<isolation::ContainerPolicy> policy;
  // The service's guard on every live container's /output (jobs and
  // sandboxes); declared before everything that holds a watch on it.
  std::unique_ptr<isolation::OutputWatch> output_watch;
  std::unique_ptr<isolation::ContainerRunner> runner;
  // code_runner.runtime: native only; jobs then run through it, never
  // through `runner`.
  std::unique_ptr<isolation::NativeRunner> native_runner;
  // "engine probe": "docker" or "podman" once the engine answered; "" if
  // it did not answer at startup (the node heartbeat asks again).
  std::string engine_kind;

  // What jobs run through: native_runner when set, else runner, each
  // behind the compile step of the compiled languages.
  std::unique_ptr<isolation::CompilingRunner> compiling_runner;
  // Judges requests with "cases", building compiled programs once.
  std::unique_ptr<judge::SubmissionJudge> judge;
  // Installs jobs' packages; null when no index is configured or jobs run
  // as host processes (native).
  std::unique_ptr<packages::PackageInstaller> packages;
  isolation::JobRunner* job_runner() const { return compiling_runner.get(); }
  bool native() const { return cfg.code_runner.runtime == config::RunMode::kNative; }

  // "job store", "jobs"
  // store.kind's store (SQLite or PostgreSQL) and the parts it keeps.
  store::StoreParts store;
  std::unique_ptr<jobs::JobQueue> queue;
  std::unique_ptr<jobs::JobHub> hub;
  std::unique_ptr<jobs::WebhookSender> webhooks;
  std::unique_ptr<isolation::WarmPool> pool;
  // "recover": how jobs reach a worker (dispatch_wiring.h); null: the
  // JobService's own (one node). A fleet's also takes the fleet's notices
  // through on_notice and on_resync (empty on one node). Declared before
  // job_service, which uses it.
  std::unique_ptr<jobs::JobDispatch> dispatch;
  std::function<void(const store::JobNotice&)> on_notice;
  std::function<void()> on_resync;

  // "execute mode": all three null when no LLM is configured.
  std::unique_ptr<intent::OpenAiClient> llm;
  std::unique_ptr<intent::AgentCatalog> agents;
  std::unique_ptr<intent::IntentPipeline> pipeline;

  // "recover", "sandboxes", "listen"
  std::unique_ptr<jobs::JobService> job_service;
  // A fleet's wake-ups (store.kind postgres; null otherwise). Declared after
  // job_service, which its callbacks call: it is destroyed (stopped) first.
  std::unique_ptr<store::JobNotices> notices;
  std::unique_ptr<sandboxes::SandboxStore> sandbox_store;
  std::unique_ptr<sandboxes::SandboxManager> sandboxes;
  // What E2B's clients reach in a sandbox besides its interpreter.
  std::unique_ptr<engine::ExecClient> execs;
  std::unique_ptr<sandboxes::SandboxProcesses> sandbox_processes;
  std::unique_ptr<sandboxes::SandboxFiles> sandbox_files;
  std::unique_ptr<auth::Authenticator> authenticator;
  // A fleet's shared requests_per_minute (store.kind postgres); null: the
  // server keeps its own buckets. Declared before server, which uses it.
  std::unique_ptr<auth::RateLimiter> rate_limiter;
  std::unique_ptr<api::Server> server;

  // "node registry": this node's row, beating until a clean shutdown
  // removes it (Service::Shutdown). Null when the store keeps no registry.
  std::unique_ptr<NodeHeartbeat> heartbeat;

  // The store's node registry (both job stores keep one); nullptr if none.
  store::NodeRegistry* node_registry() const { return store.nodes; }
};

}  // namespace coderunner::service

#endif  // CODERUNNER_SERVICE_COMPONENTS_H_
