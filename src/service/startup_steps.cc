#include "startup_steps.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "coderunner/isolation/host_mount.h"
#include "coderunner/jobs/webhook_signature.h"
#include "coderunner/store/shared_rate_limiter.h"
#include "coderunner/wire/execute_request.h"
#include "dispatch_wiring.h"
#include "node_identity.h"
#include "store_opening.h"

namespace coderunner::service {
namespace {

// coderunner-init ships next to the executable unless configured.
std::string DefaultInitPath() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "/usr/local/lib/coderunner/coderunner-init";
  return (exe.parent_path() / "coderunner-init").string();
}

Status ResolveSocket(Components& c) {
  CR_ASSIGN_OR_RETURN(c.socket, engine::ResolveEngineSocket(c.cfg.engine.socket));
  return OkStatus();
}

Status CheckInitBinary(Components& c) {
  c.init_path = c.cfg.sandbox.init_path.empty() ? DefaultInitPath() : c.cfg.sandbox.init_path;
  if (access(c.init_path.c_str(), X_OK) != 0) {
    return FailedPreconditionError("coderunner-init not found or not executable at " + c.init_path +
                                   " (set sandbox.init_path)");
  }
  return OkStatus();
}

// data_dir too: with store.kind postgres no SQLite file creates it, yet the
// webhook secret, sandboxes and agents live below it.
Status PrepareDirectories(Components& c) {
  for (const auto& [key, dir] :
       {std::pair{"workspace_dir", c.cfg.workspace_dir},
        std::pair{"artifacts.dir", c.cfg.artifacts.dir},
        std::pair{"volumes.dir", c.cfg.volumes.dir}, std::pair{"data_dir", c.cfg.data_dir}}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      return FailedPreconditionError(std::string("cannot create ") + key + " " + dir + ": " +
                                     ec.message());
    }
  }
  return OkStatus();
}

// Every /output (artifacts, sandboxes, volumes) is bound from below these.
Status EnsureNosuidMounts(Components& c) {
  for (const std::string& dir : {c.cfg.artifacts.dir, c.cfg.volumes.dir}) {
    bool mounted = false;
    CR_RETURN_IF_ERROR(isolation::EnsureNosuidNodev(dir, &mounted));
    if (mounted) spdlog::info("{}: bind-mounted onto itself nosuid,nodev", dir);
  }
  return OkStatus();
}

// code_runner.runtime: native (CheckAcross refused it without
// security.mode: permissive). The engine stays in use for everything but
// jobs: readiness pings it, recovery and the janitor still look at it.
void BuildNativeRunner(Components& c) {
  spdlog::warn(
      "!!! code_runner.runtime is native (allowed by security.mode: permissive): every job runs "
      "as a HOST PROCESS without a container, network isolation or a read-only filesystem. "
      "Sandboxes, volumes and the warm pool are off. Use only on a trusted, single-user host. !!!");
  isolation::NativeRunnerOptions options;
  options.nofile = c.cfg.sandbox.nofile;
  options.uids = c.uids.get();
  c.native_runner = std::make_unique<isolation::NativeRunner>(options);
}

// Packages (docs/packages.md), when an index is configured and jobs run in
// containers: the installer, the layers bound into every container, and
// PYTHONPATH naming the layer a job's workspace links to.
Status BuildPackages(Components& c, isolation::PolicySettings& settings) {
  const config::Config& cfg = c.cfg;
  bool configured =
      !cfg.packages.python_index_url.empty() || !cfg.packages.npm_registry_url.empty();
  for (const auto& t : cfg.tiers) {
    configured |= !t.python_index_url.empty() || !t.npm_registry_url.empty();
  }
  if (!configured || c.native()) return OkStatus();
  CR_ASSIGN_OR_RETURN(c.packages, packages::MakePackageInstaller(cfg.packages, *c.uids));
  settings.packages_host_dir = cfg.packages.dir + "/layers";
  const std::string workspace(isolation::kWorkspaceMount);
  settings.env.push_back("PYTHONPATH=" + workspace + "/" + std::string(isolation::kPackagesLink) +
                         "/python");
  // require() from anywhere (a sandbox's commands run in /home/user), and a
  // sandbox's pip and npm shims first on PATH (a job's workspace has none).
  settings.env.push_back("NODE_PATH=" + workspace + "/" + std::string(isolation::kNodeModulesLink));
  for (auto& var : settings.env) {
    if (var.rfind("PATH=", 0) == 0) {
      var = "PATH=" + workspace + "/" + sandboxes::kShimDir + ":" + var.substr(5);
    }
  }
  return OkStatus();
}

Status BuildEngineClients(Components& c) {
  const config::Config& cfg = c.cfg;
  c.metrics = std::make_unique<MetricsRegistry>();
  c.curl_transport = std::make_unique<engine::CurlTransport>(
      c.socket, std::chrono::milliseconds(cfg.engine.connect_timeout_ms));
  // Every engine request is counted (coderunner_engine_requests_total).
  c.transport = std::make_unique<engine::CountingTransport>(*c.curl_transport, *c.metrics);
  auto timeout = std::chrono::milliseconds(cfg.engine.timeout_ms);
  c.containers = std::make_unique<engine::ContainerClient>(*c.transport, timeout);
  c.images = std::make_unique<engine::ImageClient>(*c.transport, timeout);
  c.system = std::make_unique<engine::SystemClient>(*c.transport, timeout);
  c.volume_client = std::make_unique<engine::VolumeClient>(*c.transport, timeout);
  // One uid per live container and per volume, shared by everything that
  // creates containers.
  c.uids = std::make_unique<isolation::UidPool>(cfg.sandbox.uid_first, cfg.sandbox.uid_count);
  c.volume_service = std::make_unique<volumes::VolumeService>(cfg, *c.volume_client, *c.uids);

  isolation::PolicySettings settings;
  settings.init_host_path = c.init_path;
  settings.runtime = cfg.sandbox.runtime;
  settings.nofile = cfg.sandbox.nofile;
  settings.nproc = cfg.sandbox.nproc;
  CR_RETURN_IF_ERROR(BuildPackages(c, settings));
  c.policy = std::make_unique<isolation::ContainerPolicy>(settings, cfg.instance);
  isolation::RunnerOptions runner_options;
  runner_options.workspace_root = cfg.workspace_dir;
  runner_options.artifacts_root = cfg.artifacts.dir;
  runner_options.artifact_caps = cfg.ArtifactCapsFromConfig();
  runner_options.uids = c.uids.get();
  runner_options.engine_return_wait = std::chrono::seconds(cfg.jobs.engine_retry_s);
  c.output_watch = std::make_unique<isolation::OutputWatch>();
  runner_options.output_watch = c.output_watch.get();
  c.runner = std::make_unique<isolation::ContainerRunner>(*c.containers, *c.policy, runner_options);
  if (c.native()) BuildNativeRunner(c);
  // A host process has no /output of its own: compiled languages need a
  // container (their jobs then end compile_unavailable).
  if (c.native()) {
    c.compiling_runner = std::make_unique<isolation::CompilingRunner>(*c.native_runner, "");
  } else {
    c.compiling_runner = std::make_unique<isolation::CompilingRunner>(*c.runner, cfg.artifacts.dir);
  }
  c.judge = std::make_unique<judge::SubmissionJudge>(*c.compiling_runner);
  return OkStatus();
}

// Never fails: an engine not reachable yet is only logged (readiness says
// so until it answers).
Status ProbeEngine(Components& c) {
  const config::Config& cfg = c.cfg;
  auto version = c.system->Version();
  if (!version.ok()) {
    spdlog::warn("engine at {} not reachable yet: {}", c.socket, version.status().message());
    return OkStatus();
  }
  c.engine_kind = EngineKindName(version->kind);
  spdlog::info("engine at {}: {} {}", c.socket,
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
  return OkStatus();
}

Status OpenJobStore(Components& c) {
  auto env = [](const char* name) { return static_cast<const char*>(std::getenv(name)); };
  CR_ASSIGN_OR_RETURN(c.store, OpenConfiguredStore(c.cfg, env));
  CR_ASSIGN_OR_RETURN(c.notices, OpenConfiguredNotices(c.cfg, env));
  c.queue = std::make_unique<jobs::JobQueue>(static_cast<size_t>(c.cfg.jobs.max_queued));
  c.hub = std::make_unique<jobs::JobHub>();
  return OkStatus();
}

Status BuildWebhooks(Components& c) {
  const config::Config& cfg = c.cfg;
  CR_ASSIGN_OR_RETURN(std::string secret, jobs::LoadWebhookSecret(cfg.webhooks, cfg.data_dir));
  jobs::WebhookOptions options;
  options.allow_private = cfg.jobs.webhook_allow_private;
  options.threads = cfg.webhooks.threads;
  options.max_pending_per_tenant = static_cast<size_t>(cfg.webhooks.max_pending_per_tenant);
  options.max_in_flight_per_tenant = cfg.webhooks.max_in_flight_per_tenant;
  options.secret = std::move(secret);
  c.webhooks = std::make_unique<jobs::WebhookSender>(options);
  return OkStatus();
}

// The collaborators the jobs module is built on, as built by the steps
// before; `intents` once Execute mode is built (null without a model).
jobs::JobServiceDeps JobServiceDepsOf(Components& c) {
  jobs::JobServiceDeps d;
  d.config = &c.cfg;
  d.store = c.store.jobs.get();
  d.queue = c.queue.get();
  d.hub = c.hub.get();
  d.metrics = c.metrics.get();
  d.images = c.images.get();
  d.runner = c.job_runner();
  d.containers = c.containers.get();
  d.webhooks = c.webhooks.get();
  // Native jobs mount no volume: a job naming one is refused.
  d.volumes = c.native() ? nullptr : c.volume_service.get();
  d.intents = c.pipeline.get();
  d.judge = c.judge.get();
  d.packages = c.packages.get();
  d.pool = c.cfg.pool.enabled && !c.native() ? c.pool.get() : nullptr;
  d.dispatch = c.dispatch.get();
  d.outbox = c.store.outbox;
  return d;
}

Status BuildWarmPool(Components& c) {
  const config::Config& cfg = c.cfg;
  // Warm containers: created here, seeded after recovery has settled the
  // last process's containers (those carry another pool token).
  c.pool = std::make_unique<isolation::WarmPool>(
      *c.containers, *c.policy, *c.uids, cfg.pool, cfg.workspace_dir, cfg.artifacts.dir,
      cfg.ArtifactCapsFromConfig(), c.metrics.get(),
      std::chrono::seconds(cfg.pool.max_idle_s) +
          std::chrono::milliseconds(cfg.max_limits.timeout_ms) + std::chrono::seconds(30));
  if (cfg.pool.enabled && !c.native()) c.runner->set_pool(c.pool.get());
  return OkStatus();
}

// Execute mode only with a model: without one, /v1/intents answers 503.
Status BuildExecuteMode(Components& c) {
  const config::Config& cfg = c.cfg;
  if (cfg.llm.base_url.empty()) {
    spdlog::info("Execute mode is off (no llm.base_url): POST /v1/intents answers 503");
    return OkStatus();
  }
  auto client = intent::OpenAiClient::FromConfig(cfg.llm);
  if (!client.ok()) return client.status().WithContext("llm");
  auto catalog = intent::AgentCatalog::Open(cfg.intents.agents_dir, cfg.data_dir + "/agents");
  if (!catalog.ok()) return catalog.status().WithContext("agents");
  c.llm = std::move(*client);
  c.agents = std::move(*catalog);
  c.pipeline = std::make_unique<intent::IntentPipeline>(
      c.cfg, *c.store.jobs, c.native() ? nullptr : c.volume_service.get(), *c.llm, *c.agents);
  spdlog::info("Execute mode: model {} at {}", cfg.llm.model, cfg.llm.base_url);
  return OkStatus();
}

// Queued jobs are back in the queue before the first request; interrupted
// ones are settled in the background once the engine answers.
Status RecoverJobs(Components& c) {
  CR_RETURN_IF_ERROR(BuildDispatch(c));
  c.job_service = jobs::JobService::Create(JobServiceDepsOf(c));
  CR_RETURN_IF_ERROR(c.job_service->Start());
  if (c.notices && c.on_notice) {
    // A fleet's wake-ups, to its dispatch (dispatch_wiring.h).
    CR_RETURN_IF_ERROR(c.notices->Start(c.on_notice, c.on_resync));
  }
  return OkStatus();
}

Status StartWarmPool(Components& c) {
  if (!c.cfg.code_runner.enabled) {
    spdlog::warn(
        "code runner off (code_runner.enabled: false): no warm pool, and every route that runs "
        "code answers 503 code_runner_disabled");
  } else if (c.native()) {
    spdlog::info("warm pool off: code_runner.runtime is native");
  } else if (c.cfg.pool.enabled) {
    c.pool->Start(wire::DefaultJobShapes(c.cfg));
  } else {
    spdlog::info("warm pool off (pool.enabled: false): every job creates its container");
  }
  return OkStatus();
}

// Stateful sandboxes: their containers outlived the last process; adopt them.
Status StartSandboxes(Components& c) {
  const config::Config& cfg = c.cfg;
  if (c.native()) return OkStatus();  // /v1/sandboxes answers 503 (native_routes.h).
  CR_ASSIGN_OR_RETURN(c.sandbox_store, sandboxes::SandboxStore::Open(cfg.data_dir + "/sandboxes"));
  sandboxes::SandboxLayout layout;
  layout.workspace_root = cfg.workspace_dir + "/sandboxes";
  layout.output_root = cfg.artifacts.dir + "/sandboxes";
  layout.output_caps = cfg.ArtifactCapsFromConfig();
  layout.uids = c.uids.get();
  layout.output_watch = c.output_watch.get();
  c.sandboxes = std::make_unique<sandboxes::SandboxManager>(
      cfg, *c.containers, *c.policy, *c.sandbox_store, c.metrics.get(), layout,
      c.volume_service.get(), c.packages.get());
  c.sandboxes->Start();
  c.execs = std::make_unique<engine::ExecClient>(*c.transport,
                                                 std::chrono::milliseconds(cfg.engine.timeout_ms));
  sandboxes::ProcessLimits limits;
  limits.max_per_sandbox = static_cast<size_t>(cfg.e2b.max_processes_per_sandbox);
  c.sandbox_processes = std::make_unique<sandboxes::SandboxProcesses>(*c.execs, limits);
  c.sandbox_files = std::make_unique<sandboxes::SandboxFiles>(
      *c.execs, static_cast<size_t>(cfg.e2b.max_file_bytes));
  return OkStatus();
}

Status BuildAuth(Components& c) {
  const config::Config& cfg = c.cfg;
  c.authenticator = std::make_unique<auth::Authenticator>(cfg);
  if (!c.authenticator->enabled()) {
    spdlog::warn(
        "!!! auth.mode is none: EVERY request is accepted as tenant '{}' (tier {}) without a "
        "key. For local development only; never expose this service. !!!",
        cfg.auth.none_tenant, cfg.auth.none_tier);
  } else if (cfg.auth.keys.empty()) {
    spdlog::warn("auth.mode is api_keys but auth.keys is empty: every /v1 job request gets 401");
  }
  return OkStatus();
}

Status Listen(Components& c) {
  api::ServerDeps deps{&c.cfg,
                       c.system.get(),
                       c.images.get(),
                       c.job_service.get(),
                       c.metrics.get(),
                       c.authenticator.get(),
                       c.native() ? nullptr : c.volume_service.get(),
                       c.agents.get(),
                       c.sandboxes.get(),
                       c.store.jobs.get()};
  deps.nodes = c.node_registry();
  deps.sandbox_processes = c.sandbox_processes.get();
  deps.sandbox_files = c.sandbox_files.get();
  // A fleet's requests_per_minute: one bucket per tenant in the shared
  // database (SQLite has none: the server keeps the node's own buckets).
  if (c.store.rate_buckets != nullptr) {
    c.rate_limiter =
        std::make_unique<store::SharedRateLimiter>(c.store.rate_buckets, c.metrics.get());
    deps.rate_limiter = c.rate_limiter.get();
  }
  deps.sandbox_owners = c.store.sandbox_owners;
  c.server = std::make_unique<api::Server>(deps);
  Status ready = c.server->CheckReady();
  if (!ready.ok()) spdlog::warn("not ready: {}", ready.message());
  return c.server->Bind();
}

// This node's row in the node registry, once it listens: written now and
// every kNodeHeartbeatPeriodMs (running jobs from the job service; the
// engine kind once the engine answers).
Status StartNodeHeartbeat(Components& c) {
  store::NodeRegistry* registry = c.node_registry();
  if (registry == nullptr) return OkStatus();
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  NodeHeartbeatOptions options;
  options.node = NodeIdentity(c.cfg, HostName(), now_ms);
  if (options.node.engine.empty()) options.node.engine = c.engine_kind;
  options.running = [service = c.job_service.get()] { return service->running(); };
  if (!c.native()) {
    options.engine = [system = c.system.get()]() -> std::string {
      auto version = system->Version();
      return version.ok() ? EngineKindName(version->kind) : "";
    };
  }
  c.heartbeat = std::make_unique<NodeHeartbeat>(*registry, std::move(options));
  // A failed first beat is logged; the thread keeps beating.
  (void)c.heartbeat->Start();
  spdlog::info("node registry: {} at {}", c.cfg.instance, config::AdvertiseUrl(c.cfg, HostName()));
  return OkStatus();
}

}  // namespace

StepList StartupSteps(Components& c) {
  StepList steps;
  auto add = [&](const char* name, Status (*step)(Components&)) {
    steps.Add(name, [&c, step] { return step(c); });
  };
  add(kStepEngineSocket, ResolveSocket);
  add(kStepInitBinary, CheckInitBinary);
  add(kStepDirectories, PrepareDirectories);
  add(kStepNosuidMounts, EnsureNosuidMounts);
  add(kStepEngineClients, BuildEngineClients);
  add(kStepEngineProbe, ProbeEngine);
  add(kStepJobStore, OpenJobStore);
  add(kStepWebhooks, BuildWebhooks);
  add(kStepJobs, BuildWarmPool);
  add(kStepExecuteMode, BuildExecuteMode);
  add(kStepRecoverJobs, RecoverJobs);
  add(kStepWarmPool, StartWarmPool);
  add(kStepSandboxes, StartSandboxes);
  add(kStepAuth, BuildAuth);
  add(kStepListen, Listen);
  add(kStepNodeRegistry, StartNodeHeartbeat);
  return steps;
}

}  // namespace coderunner::service
