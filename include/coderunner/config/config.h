// Config: everything `coderunner serve` reads from its YAML (or TOML) file.
//
// Every field documents its unit and default; config/coderunner.yaml is the
// commented reference. Values are plain data: copy freely, no locking.
#ifndef CODERUNNER_CONFIG_CONFIG_H_
#define CODERUNNER_CONFIG_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/artifact_caps.h"
#include "coderunner/config/code_runner.h"
#include "coderunner/config/egress_config.h"
#include "coderunner/config/language_spec.h"
#include "coderunner/config/limits.h"
#include "coderunner/config/pool_options.h"

namespace coderunner::config {

struct ServerConfig {
  std::string listen = "127.0.0.1:8080";  // host:port to serve HTTP on.
  int64_t max_body_bytes = 2LL << 20;     // Request bodies above this get 413. Bytes; 2 MiB.
  int threads = 32;                       // HTTP worker threads kept (each runs one request).
  // HTTP threads at most: while every thread is busy (requests waiting for
  // their jobs hold theirs), another starts, up to this; those beyond
  // `threads` end after 10 s idle. Count; 2048 (>= threads).
  int max_threads = 2048;
  // Deepest nesting of arrays and objects in a request body; deeper bodies
  // get 400 json_too_deep before any handler runs. Count; 64 (8..1000).
  int max_json_depth = 64;
  // On SIGTERM/SIGINT: how long running jobs may go on finishing after the
  // listener closes; those still running then are stopped and re-queued
  // durably (they run again at the next start). Seconds; 20. 0: re-queue at
  // once. Keep it below the orchestrator's kill delay (compose's
  // stop_grace_period, Kubernetes' terminationGracePeriodSeconds).
  int64_t shutdown_grace_s = 20;
  // Long-held requests (/v1/execute, /v1/jobs/{id}/wait, /v1/jobs/{id}/events,
  // /v1/sandboxes/{id}/execute, Piston's execute) one tenant may hold at
  // once; the next one is 429 too_many_long_requests. A tier's
  // max_long_requests overrides it. Count; 0 (the default) = as many as the
  // tenant may queue jobs (its tier's max_queued, else jobs.max_queued).
  // All tenants together hold at most max_threads - threads, so `threads`
  // stay for every other request.
  int long_requests_per_tenant = 0;
  // How long GET /readyz and GET /v1/languages, which ask the engine and
  // need no key, answer from their last engine check. ms; 1000.
  int64_t probe_cache_ms = 1000;
  // Longest a connection may take to send one request (head and body), or
  // wait idle for its next one, while it holds an HTTP thread; past it the
  // connection is closed, whatever still trickles in (slow clients).
  // Milliseconds; 30000. 0: no bound.
  int64_t request_read_timeout_ms = 30000;
  // Connections of one peer address that may wait at once (queued, sending
  // a request, idle) without a request being handled; one more closes that
  // address's oldest waiting one. Behind a reverse proxy every client has
  // the proxy's address: raise it (0: unbounded) and let the proxy bound
  // slow clients. Count; 16.
  int max_waiting_connections_per_address = 16;
};

// The web playground (GET /, web/). Its page needs the same API keys as
// any caller; turning it off only stops serving the page and its files.
struct UiConfig {
  bool enabled = true;  // Serve the playground at GET / (and /ui/*). Default true.
};

// mcp.*: the Model Context Protocol server at /mcp (docs/mcp.md).
struct McpConfig {
  bool enabled = true;  // Serve /mcp. Default true.
  // Host names (no port) accepted besides loopback; "*" accepts any.
  std::vector<std::string> allowed_hosts;
  // Origins (scheme://host[:port]) accepted besides those of an accepted host.
  std::vector<std::string> allowed_origins;
  int max_sessions_per_tenant = 16;  // Open sessions a tenant may hold.
  int64_t session_idle_s = 1800;     // A session unused this long ends. s; 30 min.
};

// e2b.*: what the E2B SDKs speak, under /e2b (docs/e2b.md).
struct E2bConfig {
  bool enabled = true;  // Serve /e2b. Default true.
  // The language the templates "base" and "code-interpreter-v1" run (any
  // other template names a language).
  std::string template_language = "python";
  int64_t home_bytes = 512LL << 20;     // Each sandbox's writable /home/user. Bytes; 512 MiB.
  int max_processes_per_sandbox = 32;   // Running at once (429 beyond).
  int64_t max_file_bytes = 64LL << 20;  // A file read or written whole. Bytes; 64 MiB.
};

struct EngineConfig {
  // Unix socket of the Docker or Podman API. "" = DOCKER_HOST=unix://..., else
  // /run/podman/podman.sock, else /var/run/docker.sock.
  std::string socket;
  int64_t timeout_ms = 30000;         // Bound on every engine call except attach. ms; 30 s.
  int64_t connect_timeout_ms = 2000;  // Bound on connecting to the socket. ms; 2 s.
};

struct SandboxConfig {
  // Host path of the static coderunner-init binary bind-mounted into every
  // container. "" = coderunner-init next to the coderunner executable.
  std::string init_path;
  // OCI runtime of every job whose language and tier name none: "" (the
  // engine's default, runc), "runc" or "runsc" (gVisor; the engine must have
  // it registered). Default "".
  std::string runtime;
  int64_t nofile = 1024;  // RLIMIT_NOFILE per job. Count; 1024.
  // RLIMIT_NPROC: counts the processes of the container's uid, which no
  // other container shares (below). Count; 4096.
  int64_t nproc = 4096;
  // Host uids for job containers: each live container (job, warm, sandbox)
  // and each persistent volume gets one of [uid_first, uid_first +
  // uid_count) of its own, with the gid of the same number, so that no
  // per-uid kernel counter is shared between tenants (isolation/uid_pool.h;
  // bounds in config/uid_range.h). Must not hold any host account's uid or
  // subordinate id range. Defaults 2100000000 and 65536 (at most that many
  // containers and volumes at once).
  int64_t uid_first = 2100000000;
  int64_t uid_count = 65536;
  // Stateful sandboxes launched ahead for each shape recently asked for
  // (language, limits, runtime, /home/user size; up to 4 shapes), so that a
  // create takes a running container. Each holds a container, a uid and its
  // memory reservation while it waits. Count; 1. 0: none.
  int ready_sandboxes = 1;
};

// What a paying tier may do. Requests above a tier bound get 422 (limits),
// 403 (volumes) or 429 (concurrency, queue, rate), naming limit and tier.
struct TierConfig {
  std::string name;
  // The tier's Execute-mode budget: the highest limits.timeout_ms and
  // limits.cpu_ms a job may ask for, the default timeout and CPU time of
  // an intent's runs, and an intent's execution budget
  // (config/tier_limits.h). ms.
  int64_t max_timeout_ms = 30000;
  int64_t max_memory_bytes = 268435456;  // Highest limits.memory_bytes. Bytes.
  bool volumes = false;                  // May use persistent volumes.
  int max_concurrent = 2;                // Jobs of one tenant running at once.
  int max_queued = 20;                   // Jobs of one tenant waiting.
  int requests_per_minute = 60;          // API requests per tenant per minute.
  // OCI runtime of every job of this tier's tenants, overriding the
  // language's and sandbox.runtime: "runc", "runsc" (gVisor) or "" (no
  // override). Default "" for every built-in tier.
  std::string runtime;
  // Stateful sandboxes (/v1/sandboxes) of one tenant: how many may live at
  // once (count; default 5), the sum of their memory limits (bytes; default
  // 1 GiB), the TTL when a request names none (s; default 3600) and the
  // longest TTL a request may ask for (s; default 1209600 = 14 days).
  int max_sandboxes = 5;
  int64_t max_sandbox_memory_bytes = 1LL << 30;
  int64_t sandbox_ttl_s = 3600;
  int64_t max_sandbox_ttl_s = 14 * 86400;
  // Long-held requests one tenant may hold at once (see
  // ServerConfig::long_requests_per_tenant). Count; 0 (default) = the
  // server's value.
  int max_long_requests = 0;
  // What one tenant's finished jobs may keep on the host (retention by
  // size, besides jobs.retention_s by age): the bytes their kept artifacts
  // take on disk (at least artifacts.max_total_bytes, so that one job's
  // artifacts always fit), and the bytes their records store (result with
  // stdout and stderr, an intent's progress, the request; at least 1 MiB).
  // After each job of a tenant ends, its oldest finished jobs are purged,
  // record and artifacts, until both sums fit (jobs::TenantFootprint).
  // Bytes; defaults 256 MiB and 64 MiB (free; DefaultConfig grows them per
  // tier).
  int64_t max_retained_artifact_bytes = 256LL << 20;
  int64_t max_retained_output_bytes = 64LL << 20;
  // Packages (PackagesConfig): this tier's own index ("" = packages.*'s),
  // its own allowlist (empty = packages.allow), and names refused besides
  // packages.deny; likewise for npm.
  std::string python_index_url;
  std::vector<std::string> package_allow;
  std::vector<std::string> package_deny;
  std::string npm_registry_url;
  std::vector<std::string> npm_package_allow;
  std::vector<std::string> npm_package_deny;
  // The egress allowlist ("network": "allowlist", docs/egress.md): hosts
  // and ports ("api.example.com:443", "*.example.org:443"; empty, the
  // default: no job of the tier may ask), and the blocks of private,
  // loopback or link-local addresses those hosts may resolve to
  // ("10.0.0.0/8"; empty: none).
  std::vector<std::string> egress_allow;
  std::vector<std::string> egress_private;
  // The verify step of this tier's intents whose request names none:
  // "off", "checks", "full" (IntentsConfig::verify), or "" (default) for
  // intents.verify.
  std::string intent_verify;
  // Whether this tier's tenants' short jobs may follow each other in one
  // container (docs/security.md, "Container reuse"): each a fresh process,
  // with every process of the job before gone and /tmp, /output, System V
  // IPC and the workspace emptied first; never across tenants. Default
  // false for every built-in tier: one container per job.
  bool container_reuse = false;
};

// One API key. Only its SHA-256 is stored.
struct ApiKeyConfig {
  std::string tenant;
  std::string tier;
  std::string key_sha256;  // 64 lower-case hex characters.
  // An operator's key: may also call the admin routes (GET /v1/nodes);
  // every other route treats it as its tenant's. Default false.
  bool admin = false;
};

struct AuthConfig {
  // "api_keys": every /v1 request needs "Authorization: Bearer <key>".
  // "none": local development only; every request is tenant `none_tenant`
  // on tier `none_tier`, and startup logs a loud warning. Default api_keys.
  std::string mode = "api_keys";
  std::vector<ApiKeyConfig> keys;
  std::string none_tenant = "local";
  std::string none_tier = "enterprise";
};

// Caps on a request's input files (anything over them is 400).
struct FilesConfig {
  int max_count = 1000;                  // Entries in "files". Count; 1000.
  int max_depth = 16;                    // Path components. Count; 16.
  int64_t max_total_bytes = 64LL << 20;  // Decoded bytes of all files. Bytes; 64 MiB.
  int64_t max_inputs_bytes = 1LL << 20;  // "inputs" as JSON (params.json). Bytes; 1 MiB.
};

// Files jobs leave in their per-job /output directory.
struct ArtifactsConfig {
  // Host directory holding one /output directory per job, kept as the job's
  // artifacts until its record is purged. Absolute; the engine bind-mounts
  // from it, so it must be the same path for the service and the engine.
  // Made a nosuid,nodev mount at startup if it is not one. Default
  // /var/lib/coderunner/artifacts.
  std::string dir = "/var/lib/coderunner/artifacts";
  // The caps count bytes as the disk holds them: allocated blocks, a file
  // at least its size, directories included (isolation::DiskCharge).
  int64_t max_file_bytes = 10LL << 20;    // One artifact file. Bytes; 10 MiB.
  int64_t max_total_bytes = 100LL << 20;  // All of one job's artifacts. Bytes; 100 MiB.
  int max_files = 1000;                   // Entries (files and directories) per job. 1000.
};

// Persistent volumes (tiers with volumes: true).
struct VolumesConfig {
  // Host directory holding each volume's files; every volume is an engine
  // volume bound to a directory here. Absolute; same path for service and
  // engine. Made a nosuid,nodev mount at startup if it is not one. Default
  // /var/lib/coderunner/volumes.
  std::string dir = "/var/lib/coderunner/volumes";
  int64_t max_size_bytes = 1LL << 30;  // Largest size_bytes a volume may have. Bytes; 1 GiB.
  int max_files = 10000;               // Entries (files and directories) per volume. 10000.
  int max_per_tenant = 20;             // Volumes per tenant. 20.
};

// Packages from mirrors the operator runs (docs/packages.md). A job asks
// for them ("packages"); the service installs them outside the job, from
// wheels only, and mounts the result read-only.
struct PackagesConfig {
  // Host directory of the installed layers (layers/, mounted read-only into
  // every container) and of installs under way (staging/). Absolute.
  std::string dir = "/var/lib/coderunner/packages";
  // A PEP 503 "simple" index (devpi, a proxy of PyPI, a directory of wheels
  // behind a web server), e.g. "http://mirror:3141/root/pypi/+simple/".
  // "" (default): no Python packages, unless a tier names its own.
  std::string python_index_url;
  // The host's Python whose pip installs (Debian's python3-pip by
  // default). Absolute.
  std::string pip_python = "/usr/bin/python3";
  // The Python that jobs run, for which pip picks wheels: its version and
  // platform tags (pip --python-version, --platform; Debian 12's by default).
  std::string python_version = "3.11";
  std::vector<std::string> python_platforms = {"manylinux_2_36_x86_64", "linux_x86_64"};
  // Project names (any case, "-", "_" and "." alike). With `allow`, only
  // these may be installed, dependencies included; `deny` never is.
  std::vector<std::string> allow;
  std::vector<std::string> deny;
  // An npm registry (verdaccio, a proxy of registry.npmjs.org), e.g.
  // "http://mirror:4873/". "" (default): no npm packages, unless a tier
  // names its own.
  std::string npm_registry_url;
  // The host's npm, which installs with --ignore-scripts (no package's
  // install script ever runs). Absolute.
  std::string npm_command = "/usr/bin/npm";
  // npm package names, exactly ("@scope/name"): as allow and deny.
  std::vector<std::string> npm_allow;
  std::vector<std::string> npm_deny;
  int max_packages = 50;                      // Per set, dependencies included. Count.
  int64_t max_installed_bytes = 512LL << 20;  // One set, downloads included. Bytes.
  // All layers on the host's disk: past it, the layers no job or sandbox
  // holds go, least recently used first. Bytes; 8 GiB.
  int64_t max_layers_bytes = 8LL << 30;
  int64_t install_timeout_ms = 120000;  // One install. ms.
  int max_requirements = 20;            // Names one request may give. Count.
};

// Webhook deliveries (a job's callback_url).
struct WebhooksConfig {
  // The NAME of the environment variable holding the signing secret; the
  // secret itself never appears in config (the service does not start if
  // the variable is unset or empty). "" (default): a random secret kept in
  // <data_dir>/webhook_secret (0600), created at the first start. Each
  // tenant's deliveries are signed with a key derived from it (docs/api.md,
  // Verifying a webhook), so no tenant can sign another tenant's deliveries.
  std::string secret_env;
  int threads = 4;  // Delivery threads. Count; 4.
  // Deliveries of one tenant waiting to be sent; beyond it, dropped and
  // counted. Count; 1000.
  int max_pending_per_tenant = 1000;
  // Deliveries of one tenant being sent at once (a slow receiver holds one
  // for up to its timeouts and retries). Count; 1.
  int max_in_flight_per_tenant = 1;
};

// Where job records and the result cache live (store.*).
struct StoreConfig {
  // "sqlite" (default): <data_dir>/jobs.db, for one node. "postgres": a
  // PostgreSQL 15+ server (store.url) that a fleet of nodes shares.
  std::string kind = "sqlite";
  // A libpq connection string, keyword/value ("host=/run/postgresql
  // dbname=coderunner user=coderunner") or URI ("postgresql://user@host/db").
  // Required for postgres, refused for sqlite. It must not hold a password
  // (password=, user:pass@ or ?password=), nor control characters: give the
  // password through password_env. Default "".
  std::string url;
  // The NAME of the environment variable holding the password; the service
  // does not start if it names an unset variable. "" (default): none (peer or
  // trust authentication, or libpq's ~/.pgpass).
  std::string password_env;
  int max_connections = 8;        // Open connections per node, at most. Count; 8 (1..256).
  int connect_timeout_ms = 5000;  // Bound on one connect and on waiting for one. ms; 5 s (>= 100).
  // Bound on one statement, sent to answered: a server that accepts and
  // never answers fails the call (store_unavailable). ms; 30 s (>= 100).
  int call_timeout_ms = 30000;
  // Fleet mode (kind postgres) only: each node (its own `instance`) claims
  // queued jobs with a lease of this length, renewed every third of it; a
  // node silent for longer loses its jobs to the others. ms; 15 s
  // (1000..600000; "15s" works).
  int64_t lease_ms = 15000;
  // Fleet mode only: runs of one job, counting the first, before a job
  // whose node died (its lease expired) ends as error "interrupted".
  // Count; 2 (1..10).
  int max_attempts = 2;
};

// This node as the fleet sees it (node.*; the node registry, GET /v1/nodes).
struct NodeConfig {
  // The URL other nodes and clients reach this node at:
  // http(s)://host[:port][/path], no user info, no spaces. "" (default):
  // http://<host>:<port> of server.listen, or the machine's hostname when
  // it listens on every address (AdvertiseUrl).
  std::string advertise_url;
};

struct JobsConfig {
  int max_concurrent = 0;           // Worker threads running jobs. 0 = number of cores.
  int max_queued = 1000;            // Jobs waiting for a worker; beyond it, 429. Count; 1000.
  int64_t retention_s = 7 * 86400;  // Terminal job records are purged after this. s; 7 days.
  int64_t cache_ttl_s = 3600;       // Result cache entry lifetime. s; 1 h. 0 disables the cache.
  // While the engine is unreachable, a job keeps retrying for this long
  // before ending as error/engine_unavailable. s; 30.
  int64_t engine_retry_s = 30;
  int64_t janitor_interval_s = 60;  // Orphan sweep and purge period. s; 60.
  int64_t max_wait_s = 300;         // Upper bound of /wait?timeout_s. s; 300.
  int max_batch = 50;               // Entries in POST /v1/jobs/batch. Count; 50.
  // Free bytes kept on each of data_dir, workspace_dir and artifacts.dir
  // for the jobs already accepted (their workspaces, artifacts and
  // results): below it a submission is refused (507 disk_full) and
  // /readyz is false. Bytes; 64 MiB. 0: refuse only once a disk is full.
  int64_t disk_reserve_bytes = 64LL << 20;
  // Allow webhook callbacks to loopback, link-local and private addresses.
  bool webhook_allow_private = false;
};

// An OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, Ollama,
// llama.cpp server) used by Execute mode (POST /v1/intents).
struct LlmConfig {
  // Base URL including the API version path, e.g. "https://api.openai.com/v1"
  // or "http://127.0.0.1:11434/v1" (Ollama); calls go to
  // <base_url>/chat/completions. "" = no LLM: POST /v1/intents answers 503,
  // everything else works. http or https only. Default "".
  std::string base_url;
  // Model name sent as "model". Required when base_url is set. Default "".
  std::string model;
  // The NAME of the environment variable holding the API key, sent as
  // "Authorization: Bearer <key>"; the key itself never appears in config.
  // "" = no key (local servers). Default "".
  std::string api_key_env;
  int64_t timeout_ms = 60000;         // Bound on one model call, connect to last byte. ms; 60 s.
  int64_t connect_timeout_ms = 5000;  // Bound on connecting to base_url. ms; 5 s.
  int max_tokens = 1024;              // "max_tokens" of one call (upper bound). Tokens; 1024.
  double temperature = 0.0;           // "temperature" of every call. 0..2; 0.
};

// Execute mode: intent -> agent -> code -> run -> answer.
struct IntentsConfig {
  // Code generations (and runs) per intent, the first included. 1..3; 3.
  int max_attempts = 3;
  // Wall time all runs of one intent may use together is its tier's
  // Execute-mode budget (TierConfig::max_timeout_ms; config/tier_limits.h);
  // a positive value lowers it for every tier. Each run's timeout and CPU
  // time are also capped by what is left. ms; 0 (default) = the tier's.
  int64_t exec_budget_ms = 0;
  // Tokens (prompt + completion, as the model reports them) all model calls
  // of one intent may use together. Tokens; 16000.
  int64_t token_budget = 16000;
  // Extra agent profiles (*.yaml) loaded at startup besides the built-in
  // python, javascript and bash ones; "" = none. Default "".
  std::string agents_dir;
  // Lowest match score (0..1) at which an existing agent profile is reused
  // for an intent; below it the model writes a new profile. 0.5.
  double agent_match_threshold = 0.5;
  // Bytes of "intent" text accepted. Bytes; 4096.
  int64_t max_intent_bytes = 4096;
  // The verify step of every intent whose request and tier name none:
  // "off" (the program's output goes to the formatter as it is), "checks"
  // (the model writes checks for its program, which run with it in its
  // container; a failed check is a retry) or "full" (checks, then the model
  // judges whether the output answers the question as asked). Default off.
  std::string verify = "off";
};

struct Config {
  ServerConfig server;
  EngineConfig engine;
  SandboxConfig sandbox;
  // Host directory for per-job workspaces. Default /var/lib/coderunner/workspaces.
  std::string workspace_dir = "/var/lib/coderunner/workspaces";
  // Names this service's containers (label io.coderunner.instance) so that
  // services sharing an engine never clean up each other's. Default "default".
  std::string instance = "default";
  // Directory for durable state (the SQLite job database, store.kind sqlite). Default
  // /var/lib/coderunner/data.
  std::string data_dir = "/var/lib/coderunner/data";
  StoreConfig store;  // store.*
  NodeConfig node;    // node.*
  JobsConfig jobs;
  WebhooksConfig webhooks;
  // Warm container pool (pool.*; see PoolOptions for each key's unit and
  // default).
  PoolOptions pool;
  FilesConfig files;
  ArtifactsConfig artifacts;
  VolumesConfig volumes;
  PackagesConfig packages;  // packages.*
  EgressConfig egress;      // egress.*
  LlmConfig llm;
  IntentsConfig intents;
  AuthConfig auth;
  CodeRunnerConfig code_runner;  // code_runner.*
  SecurityConfig security;       // security.*
  UiConfig ui;                   // ui.*
  McpConfig mcp;                 // mcp.*
  E2bConfig e2b;                 // e2b.*
  // Tiers by name. Defaults: free, pro, business, enterprise as in the
  // Execute-mode seed (budgets 30 s, 2 min, 10 min; enterprise 10 min,
  // configurable); enterprise's memory defaults to limits.max's.
  std::vector<TierConfig> tiers;
  const TierConfig* FindTier(std::string_view name) const;
  // The tier of `tenant`: its first API key's tier, or auth.none_tier.
  const TierConfig* TierOfTenant(std::string_view tenant) const;
  Limits default_limits;  // limits.default.*
  Limits max_limits;      // limits.max.*
  // languages.<name>; in file order. Exactly one has is_default.
  std::vector<LanguageSpec> languages;
  std::string log_level = "info";  // trace, debug, info, warn, error.
  // log.format: "text" (spdlog's human-readable lines) or "json" (one JSON
  // object per line: ts, level, msg, and request_id while a request is
  // handled). Default "text".
  std::string log_format = "text";

  // artifacts.* as the runner's caps.
  ArtifactCaps ArtifactCapsFromConfig() const;
  // The directories this node's jobs write to: data_dir, workspace_dir,
  // artifacts.dir (jobs.disk_reserve_bytes is kept free on each).
  std::vector<std::string> JobWriteDirs() const;
  // The language with is_default, or the first one.
  const LanguageSpec& DefaultLanguage() const;
  // The language named `name` or having it among its aliases; nullptr if
  // none is configured.
  const LanguageSpec* FindLanguage(std::string_view name) const;
};

// The URL this node advertises: node.advertise_url when set, else
// http://<host>:<port> of server.listen with `hostname` as the host when
// the listen host is 0.0.0.0, [::], :: or empty (every address). Pure;
// thread-safe.
std::string AdvertiseUrl(const Config& c, std::string_view hostname);

// The built-in configuration (what an empty file gives).
Config DefaultConfig();

// Parses YAML text over DefaultConfig(). Unknown keys, wrong types and
// inconsistent values are InvalidArgument naming the key ("config: ...").
StatusOr<Config> ParseConfig(std::string_view yaml_text);

// Reads and parses `path`: TOML if it ends in ".toml" (the same keys; the
// seed's [tools.code_runner] is code_runner), else YAML. Errors are prefixed
// with `path`. A missing or unreadable file is NotFound.
StatusOr<Config> LoadConfigFile(const std::string& path);

}  // namespace coderunner::config

#endif  // CODERUNNER_CONFIG_CONFIG_H_
