// coderunner: wires config, engine clients, the runner and the HTTP server.
#include <malloc.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "coderunner/api/execute_request.h"
#include "coderunner/api/server.h"
#include "coderunner/cli/cli_main.h"
#include "coderunner/common/logging.h"
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
#include "coderunner/jobs/job_service.h"
#include "coderunner/jobs/request_redaction.h"
#include "coderunner/jobs/webhook_sender.h"
#include "coderunner/jobs/webhook_signature.h"
#include "coderunner/sandbox/container_policy.h"
#include "coderunner/sandbox/container_runner.h"
#include "coderunner/sandbox/host_mount.h"
#include "coderunner/sandbox/workspace.h"
#include "coderunner/sessions/sandbox_manager.h"
#include "coderunner/sessions/sandbox_store.h"
#include "coderunner/store/sqlite_job_store.h"
#include "coderunner/volumes/volume_service.h"

namespace {

using namespace coderunner;  // NOLINT: main only wires.

// coderunner-init ships next to the executable unless configured.
std::string DefaultInitPath() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "/usr/local/lib/coderunner/coderunner-init";
  return (exe.parent_path() / "coderunner-init").string();
}

int Serve(const std::string& config_path) {
  // Every thread inherits this mask, so SIGINT/SIGTERM only ever reach the
  // sigwait below: block them before any thread (pool, workers) starts.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  StatusOr<config::Config> loaded = config_path.empty()
                                        ? StatusOr<config::Config>(config::DefaultConfig())
                                        : config::LoadConfigFile(config_path);
  if (!loaded.ok()) {
    std::cerr << "coderunner: " << loaded.status().message() << "\n";
    return 2;
  }
  config::Config cfg = std::move(*loaded);
  Status logging = ConfigureLogging(cfg.log_level, cfg.log_format);
  if (!logging.ok()) {
    std::cerr << "coderunner: " << logging.message() << "\n";
    return 2;
  }

  auto socket = engine::ResolveEngineSocket(cfg.engine.socket);
  if (!socket.ok()) {
    std::cerr << "coderunner: " << socket.status().message() << "\n";
    return 2;
  }
  std::string init_path = cfg.sandbox.init_path.empty() ? DefaultInitPath() : cfg.sandbox.init_path;
  if (access(init_path.c_str(), X_OK) != 0) {
    std::cerr << "coderunner: coderunner-init not found or not executable at " << init_path
              << " (set sandbox.init_path)\n";
    return 2;
  }
  for (const auto& [key, dir] :
       {std::pair{"workspace_dir", cfg.workspace_dir},
        std::pair{"artifacts.dir", cfg.artifacts.dir}, std::pair{"volumes.dir", cfg.volumes.dir}}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      std::cerr << "coderunner: cannot create " << key << " " << dir << ": " << ec.message()
                << "\n";
      return 2;
    }
  }
  // Every /output (artifacts, sandboxes, volumes) is bound from below these.
  for (const std::string& dir : {cfg.artifacts.dir, cfg.volumes.dir}) {
    bool mounted = false;
    Status safe = sandbox::EnsureNosuidNodev(dir, &mounted);
    if (!safe.ok()) {
      std::cerr << "coderunner: " << safe.message() << "\n";
      return 2;
    }
    if (mounted) spdlog::info("{}: bind-mounted onto itself nosuid,nodev", dir);
  }

  MetricsRegistry metrics;
  engine::CurlTransport curl_transport(*socket,
                                       std::chrono::milliseconds(cfg.engine.connect_timeout_ms));
  // Every engine request is counted (coderunner_engine_requests_total).
  engine::CountingTransport transport(curl_transport, metrics);
  auto timeout = std::chrono::milliseconds(cfg.engine.timeout_ms);
  engine::ContainerClient containers(transport, timeout);
  engine::ImageClient images(transport, timeout);
  engine::SystemClient system(transport, timeout);
  engine::VolumeClient volume_client(transport, timeout);
  // One uid per live container and per volume, shared by everything that
  // creates containers.
  sandbox::UidPool uids(cfg.sandbox.uid_first, cfg.sandbox.uid_count);
  volumes::VolumeService volume_service(cfg, volume_client, uids);

  sandbox::PolicySettings settings;
  settings.init_host_path = init_path;
  settings.runtime = cfg.sandbox.runtime;
  settings.nofile = cfg.sandbox.nofile;
  settings.nproc = cfg.sandbox.nproc;
  sandbox::ContainerPolicy policy(settings, cfg.instance);
  sandbox::RunnerOptions runner_options;
  runner_options.workspace_root = cfg.workspace_dir;
  runner_options.artifacts_root = cfg.artifacts.dir;
  runner_options.artifact_caps = cfg.ArtifactCapsFromConfig();
  runner_options.uids = &uids;
  sandbox::ContainerRunner runner(containers, policy, runner_options);

  auto version = system.Version();
  if (version.ok()) {
    spdlog::info("engine at {}: {} {}", *socket,
                 version->kind == engine::EngineKind::kPodman ? "Podman" : "Docker",
                 version->version);
    bool runtime_configured = !cfg.sandbox.runtime.empty();
    for (const auto& l : cfg.languages) runtime_configured |= !l.runtime.empty();
    for (const auto& t : cfg.tiers) runtime_configured |= !t.runtime.empty();
    if (version->kind == engine::EngineKind::kPodman && runtime_configured) {
      spdlog::warn(
          "OCI runtimes are configured, but Podman ignores the runtime a container asks for: "
          "every job runs under the Podman service's default runtime, and a job configured for "
          "another one ends as error runtime_not_applied without running");
    }
  } else {
    spdlog::warn("engine at {} not reachable yet: {}", *socket, version.status().message());
  }

  // A finished job's stored request keeps nothing that looks secret.
  auto store = store::SqliteJobStore::Open(cfg.data_dir + "/jobs.db", jobs::RedactStoredRequest);
  if (!store.ok()) {
    std::cerr << "coderunner: " << store.status().message() << "\n";
    return 2;
  }
  jobs::JobQueue queue(static_cast<size_t>(cfg.jobs.max_queued));
  jobs::JobHub hub;
  auto webhook_secret = jobs::LoadWebhookSecret(cfg.webhooks, cfg.data_dir);
  if (!webhook_secret.ok()) {
    std::cerr << "coderunner: webhooks: " << webhook_secret.status().message() << "\n";
    return 2;
  }
  jobs::WebhookOptions webhook_options;
  webhook_options.allow_private = cfg.jobs.webhook_allow_private;
  webhook_options.threads = cfg.webhooks.threads;
  webhook_options.max_pending_per_tenant = static_cast<size_t>(cfg.webhooks.max_pending_per_tenant);
  webhook_options.max_in_flight_per_tenant = cfg.webhooks.max_in_flight_per_tenant;
  webhook_options.secret = std::move(*webhook_secret);
  jobs::WebhookSender webhooks(webhook_options);
  jobs::JobsContext jobs_ctx{&cfg,        store->get(), &queue,   &hub,      &runner,
                             &containers, &images,      &metrics, &webhooks, &volume_service};
  // Warm containers: created here, seeded after recovery has settled the
  // last process's containers (those carry another pool token).
  sandbox::WarmPool pool(containers, policy, uids, cfg.pool, cfg.workspace_dir, cfg.artifacts.dir,
                         cfg.ArtifactCapsFromConfig(), &metrics,
                         std::chrono::seconds(cfg.pool.max_idle_s) +
                             std::chrono::milliseconds(cfg.max_limits.timeout_ms) +
                             std::chrono::seconds(30));
  if (cfg.pool.enabled) {
    jobs_ctx.pool = &pool;
    runner.set_pool(&pool);
  }
  // Execute mode only with a model: without one, /v1/intents answers 503.
  std::unique_ptr<intent::OpenAiClient> llm;
  std::unique_ptr<intent::AgentCatalog> agents;
  std::unique_ptr<intent::IntentPipeline> pipeline;
  if (!cfg.llm.base_url.empty()) {
    auto client = intent::OpenAiClient::FromConfig(cfg.llm);
    if (!client.ok()) {
      std::cerr << "coderunner: llm: " << client.status().message() << "\n";
      return 2;
    }
    auto catalog = intent::AgentCatalog::Open(cfg.intents.agents_dir, cfg.data_dir + "/agents");
    if (!catalog.ok()) {
      std::cerr << "coderunner: agents: " << catalog.status().message() << "\n";
      return 2;
    }
    llm = std::move(*client);
    agents = std::move(*catalog);
    pipeline = std::make_unique<intent::IntentPipeline>(jobs_ctx, llm.get(), agents.get());
    jobs_ctx.intents = pipeline.get();
    spdlog::info("Execute mode: model {} at {}", cfg.llm.model, cfg.llm.base_url);
  } else {
    spdlog::info("Execute mode is off (no llm.base_url): POST /v1/intents answers 503");
  }
  jobs::JobService job_service(jobs_ctx);
  // Queued jobs are back in the queue before the first request; interrupted
  // ones are settled in the background once the engine answers.
  Status started = job_service.Start();
  if (!started.ok()) {
    std::cerr << "coderunner: job store: " << started.message() << "\n";
    return 2;
  }

  if (cfg.pool.enabled) {
    pool.Start(api::DefaultJobShapes(cfg));
  } else {
    spdlog::info("warm pool off (pool.enabled: false): every job creates its container");
  }

  // Stateful sandboxes: their containers outlived the last process; adopt them.
  auto sandbox_store = sessions::SandboxStore::Open(cfg.data_dir + "/sandboxes");
  if (!sandbox_store.ok()) {
    std::cerr << "coderunner: " << sandbox_store.status().message() << "\n";
    return 2;
  }
  sessions::SandboxLayout sandbox_layout{cfg.workspace_dir + "/sandboxes",
                                         cfg.artifacts.dir + "/sandboxes",
                                         cfg.ArtifactCapsFromConfig(), &uids};
  sessions::SandboxManager sandboxes(cfg, containers, policy, **sandbox_store, &metrics,
                                     sandbox_layout, &volume_service);
  sandboxes.Start();

  auth::Authenticator authenticator(cfg);
  if (!authenticator.enabled()) {
    spdlog::warn(
        "!!! auth.mode is none: EVERY request is accepted as tenant '{}' (tier {}) without a "
        "key. For local development only; never expose this service. !!!",
        cfg.auth.none_tenant, cfg.auth.none_tier);
  } else if (cfg.auth.keys.empty()) {
    spdlog::warn("auth.mode is api_keys but auth.keys is empty: every /v1 job request gets 401");
  }
  api::Server server({&cfg, &system, &images, &job_service, &metrics, &authenticator,
                      &volume_service, agents.get(), &sandboxes});
  Status ready = server.CheckReady();
  if (!ready.ok()) spdlog::warn("not ready: {}", ready.message());
  Status bound = server.Bind();
  if (!bound.ok()) {
    std::cerr << "coderunner: " << bound.message() << "\n";
    return 2;
  }

  // Stop on SIGINT/SIGTERM from a dedicated thread: httplib's stop() is not
  // async-signal-safe, so no work happens in a signal handler. The listener
  // closes at once; running jobs get server.shutdown_grace_s to finish and
  // are re-queued after it (JobService::Drain), which also wakes the
  // handlers waiting on them, so Serve returns.
  std::thread signals([&] {
    int sig = 0;
    sigwait(&set, &sig);
    spdlog::info("signal {}: stopping; running jobs get up to {} s (server.shutdown_grace_s)", sig,
                 cfg.server.shutdown_grace_s);
    server.Stop();
    job_service.Drain(std::chrono::seconds(cfg.server.shutdown_grace_s));
  });
  // A client that disconnects mid-response must not kill the process.
  signal(SIGPIPE, SIG_IGN);

  spdlog::info("coderunner listening on {} (port {})", cfg.server.listen, server.port());
  Status served = server.Serve();
  // Serve ended on its own (an error): wake the signal thread to drain.
  if (!served.ok()) kill(getpid(), SIGTERM);
  signals.join();
  // Queued and re-queued jobs stay durable for the next start.
  job_service.Stop();
  sandboxes.Stop();
  pool.Stop();
  if (!served.ok()) {
    spdlog::error("{}", served.message());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Job output passes through transient buffers of a few MiB (results,
  // redacted copies, JSON). A fixed mmap threshold keeps such blocks out of
  // the heap, so freeing them returns the memory at once; glibc's default
  // raises the threshold after the first large free, and the heap then
  // keeps up to tens of MiB of them across jobs.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  // Subcommands (serve and the client commands) are parsed in src/cli/.
  return cli::Main(argc, argv, Serve);
}
