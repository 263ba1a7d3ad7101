// The tables: one per config section, and the list of top-level sections
// that reads them. See config_table.h for the columns.
#include "config_sections.h"

#include "config_checks.h"
#include "config_table.h"

namespace coderunner::config {
namespace {

using U = Unit;

// Messages several keys share, reported against their section.
constexpr char kFilesCaps[] = "caps must be positive (max_depth 1..64)";
constexpr char kTierLimits[] = "every limit must be positive (memory at least 6 MiB)";
constexpr const char* kTierSandbox = kTierSandboxCaps;

const Field<Config> kRootFields[] = {
    {"workspace_dir", &Config::workspace_dir, U::kNone, {}, CheckAbsolute},
    {"instance", &Config::instance, U::kNone, {}, CheckInstance},
    {"data_dir", &Config::data_dir, U::kNone, {}, CheckAbsolute},
};

const Field<ServerConfig> kServerFields[] = {
    {"listen", &ServerConfig::listen, U::kNone, {}, CheckHostPort},
    {"max_body_bytes", &ServerConfig::max_body_bytes, U::kBytes, AtLeast(1024)},
    {"max_json_depth", &ServerConfig::max_json_depth, U::kCount, Between(8, 1000)},
    {"threads", &ServerConfig::threads, U::kCount, Between(1, 4096)},
    {"max_threads", &ServerConfig::max_threads, U::kCount, Between(1, 65536)},
    {"shutdown_grace_s", &ServerConfig::shutdown_grace_s, U::kSeconds, Between(0, 3600)},
    {"long_requests_per_tenant", &ServerConfig::long_requests_per_tenant, U::kCount, AtLeast(0)},
    {"probe_cache_ms", &ServerConfig::probe_cache_ms, U::kMillis, AtLeast(0)},
    {"request_read_timeout_ms", &ServerConfig::request_read_timeout_ms, U::kMillis, AtLeast(0)},
    {"max_waiting_connections_per_address", &ServerConfig::max_waiting_connections_per_address,
     U::kCount, AtLeast(0)},
};

const Field<EngineConfig> kEngineFields[] = {
    {"socket", &EngineConfig::socket},
    {"timeout_ms", &EngineConfig::timeout_ms, U::kMillis, AtLeast(100)},
    {"connect_timeout_ms", &EngineConfig::connect_timeout_ms, U::kMillis,
     AtLeast(10, "must be >= 10")},
};

const Field<SandboxConfig> kSandboxFields[] = {
    {"init_path", &SandboxConfig::init_path},
    {"runtime", &SandboxConfig::runtime, U::kNone, {}, CheckRuntime},
    {"nofile", &SandboxConfig::nofile, U::kCount, Between(16, 1048576)},
    {"nproc", &SandboxConfig::nproc, U::kCount, Between(1, 4194304)},
    {"uid_first", &SandboxConfig::uid_first, U::kCount},  // With uid_count: CheckAcross.
    {"uid_count", &SandboxConfig::uid_count, U::kCount},
    {"ready_sandboxes", &SandboxConfig::ready_sandboxes, U::kCount, Between(0, 16)},
};

const Field<FilesConfig> kFilesFields[] = {
    {"max_count", &FilesConfig::max_count, U::kCount, SectionCap(AtLeast(0), kFilesCaps)},
    {"max_depth", &FilesConfig::max_depth, U::kCount, SectionCap(Between(1, 64), kFilesCaps)},
    {"max_total_bytes", &FilesConfig::max_total_bytes, U::kBytes,
     SectionCap(AtLeast(0), kFilesCaps)},
    {"max_inputs_bytes", &FilesConfig::max_inputs_bytes, U::kBytes,
     SectionCap(AtLeast(2), kFilesCaps)},
};

const Field<ArtifactsConfig> kArtifactsFields[] = {
    {"dir", &ArtifactsConfig::dir, U::kNone, {}, CheckAbsolute},
    {"max_file_bytes", &ArtifactsConfig::max_file_bytes, U::kBytes},  // Pair: CheckAcross.
    {"max_total_bytes", &ArtifactsConfig::max_total_bytes, U::kBytes},
    {"max_files", &ArtifactsConfig::max_files, U::kCount, Between(1, 1000000)},
};

const Field<VolumesConfig> kVolumesFields[] = {
    {"dir", &VolumesConfig::dir, U::kNone, {}, CheckAbsolute},
    {"max_size_bytes", &VolumesConfig::max_size_bytes, U::kBytes, AtLeast(4096, "must be >= 4096")},
    {"max_files", &VolumesConfig::max_files, U::kCount, Between(1, 10000000)},
    {"max_per_tenant", &VolumesConfig::max_per_tenant, U::kCount, AtLeast(1)},
};

const Field<EgressConfig> kEgressFields[] = {
    {"max_bytes", &EgressConfig::max_bytes, U::kBytes, AtLeast(1024)},
    {"max_connections", &EgressConfig::max_connections, U::kCount, Between(1, 256)},
    {"connect_timeout_ms", &EgressConfig::connect_timeout_ms, U::kMillis, AtLeast(100)},
    {"idle_timeout_ms", &EgressConfig::idle_timeout_ms, U::kMillis, AtLeast(100)},
    {"max_log_entries", &EgressConfig::max_log_entries, U::kCount, Between(1, 10000)},
};

const Field<PackagesConfig> kPackagesFields[] = {
    {"dir", &PackagesConfig::dir, U::kNone, {}, CheckAbsolute},
    {"python_index_url", &PackagesConfig::python_index_url, U::kNone, {}, CheckHttpUrl},
    {"pip_python", &PackagesConfig::pip_python, U::kNone, {}, CheckAbsolute},
    {"python_version", &PackagesConfig::python_version},
    {"python_platforms", &PackagesConfig::python_platforms},
    {"allow", &PackagesConfig::allow},
    {"deny", &PackagesConfig::deny},
    {"npm_registry_url", &PackagesConfig::npm_registry_url, U::kNone, {}, CheckHttpUrl},
    {"npm_command", &PackagesConfig::npm_command, U::kNone, {}, CheckAbsolute},
    {"npm_allow", &PackagesConfig::npm_allow},
    {"npm_deny", &PackagesConfig::npm_deny},
    {"max_packages", &PackagesConfig::max_packages, U::kCount, Between(1, 1000)},
    {"max_installed_bytes", &PackagesConfig::max_installed_bytes, U::kBytes, AtLeast(1 << 20)},
    {"max_layers_bytes", &PackagesConfig::max_layers_bytes, U::kBytes, AtLeast(1 << 16)},
    {"install_timeout_ms", &PackagesConfig::install_timeout_ms, U::kMillis, AtLeast(1000)},
    {"max_requirements", &PackagesConfig::max_requirements, U::kCount, Between(1, 200)},
};

const Field<PoolOptions> kPoolFields[] = {
    {"enabled", &PoolOptions::enabled},
    {"size", &PoolOptions::size, U::kCount, Between(0, 64)},
    {"sizes", &PoolOptions::sizes, U::kCount, Between(0, 64)},
    {"max_per_shape", &PoolOptions::max_per_shape, U::kCount, Between(1, 64)},
    {"max_containers", &PoolOptions::max_containers, U::kCount, Between(1, 1024)},
    {"max_shapes", &PoolOptions::max_shapes, U::kCount, Between(1, 256)},
    {"max_idle_s", &PoolOptions::max_idle_s, U::kSeconds, AtLeast(1)},
    {"fill_parallelism", &PoolOptions::fill_parallelism, U::kCount, Between(1, 16)},
    {"shape_idle_s", &PoolOptions::shape_idle_s, U::kSeconds, AtLeast(1)},
    {"reuse_idle_ms", &PoolOptions::reuse_idle_ms, U::kMillis, Between(1, 600000)},
    {"reuse_max_jobs", &PoolOptions::reuse_max_jobs, U::kCount, Between(1, 100000)},
};

const Field<StoreConfig> kStoreFields[] = {
    {"kind", &StoreConfig::kind, U::kNone, {}, CheckStoreKind},
    {"url", &StoreConfig::url, U::kNone, {}, CheckStoreUrl},  // Pairs with kind: CheckStore.
    {"password_env", &StoreConfig::password_env, U::kNone, {}, CheckEnvName},
    {"max_connections", &StoreConfig::max_connections, U::kCount, Between(1, 256)},
    {"connect_timeout_ms", &StoreConfig::connect_timeout_ms, U::kMillis, AtLeast(100)},
    {"call_timeout_ms", &StoreConfig::call_timeout_ms, U::kMillis, AtLeast(100)},
    {"lease_ms", &StoreConfig::lease_ms, U::kMillis, Between(1000, 600000)},
    {"max_attempts", &StoreConfig::max_attempts, U::kCount, Between(1, 10)},
};

const Field<NodeConfig> kNodeFields[] = {
    {"advertise_url", &NodeConfig::advertise_url, U::kNone, {}, CheckAdvertiseUrl},
};

const Field<JobsConfig> kJobsFields[] = {
    {"max_concurrent", &JobsConfig::max_concurrent, U::kCount,
     Between(0, 1024, "must be between 0 (= cores) and 1024")},
    {"max_queued", &JobsConfig::max_queued, U::kCount, Between(1, 1000000)},
    {"retention_s", &JobsConfig::retention_s, U::kSeconds, AtLeast(60)},
    {"cache_ttl_s", &JobsConfig::cache_ttl_s, U::kSeconds, AtLeast(0)},
    {"engine_retry_s", &JobsConfig::engine_retry_s, U::kSeconds, AtLeast(0)},
    {"janitor_interval_s", &JobsConfig::janitor_interval_s, U::kSeconds, AtLeast(1)},
    {"max_wait_s", &JobsConfig::max_wait_s, U::kSeconds, Between(1, 3600)},
    {"max_batch", &JobsConfig::max_batch, U::kCount, Between(1, 1000)},
    {"disk_reserve_bytes", &JobsConfig::disk_reserve_bytes, U::kBytes, AtLeast(0)},
    {"webhook_allow_private", &JobsConfig::webhook_allow_private},
};

const Field<WebhooksConfig> kWebhooksFields[] = {
    {"secret_env", &WebhooksConfig::secret_env},
    {"threads", &WebhooksConfig::threads, U::kCount, Between(1, 256, "must be 1..256")},
    {"max_pending_per_tenant", &WebhooksConfig::max_pending_per_tenant, U::kCount, AtLeast(1)},
    {"max_in_flight_per_tenant", &WebhooksConfig::max_in_flight_per_tenant, U::kCount, AtLeast(1)},
};

const Field<UiConfig> kUiFields[] = {
    {"enabled", &UiConfig::enabled},
};

const Field<McpConfig> kMcpFields[] = {
    {"enabled", &McpConfig::enabled},
    {"allowed_hosts", &McpConfig::allowed_hosts},
    {"allowed_origins", &McpConfig::allowed_origins},
    {"max_sessions_per_tenant", &McpConfig::max_sessions_per_tenant, U::kCount, Between(1, 1000)},
    {"session_idle_s", &McpConfig::session_idle_s, U::kSeconds, Between(10, 7 * 86400)},
};

const Field<E2bConfig> kE2bFields[] = {
    {"enabled", &E2bConfig::enabled},
    {"template_language", &E2bConfig::template_language},
    {"home_bytes", &E2bConfig::home_bytes, U::kBytes, Between(1LL << 20, 64LL << 30)},
    {"max_processes_per_sandbox", &E2bConfig::max_processes_per_sandbox, U::kCount,
     Between(1, 1024)},
    {"max_file_bytes", &E2bConfig::max_file_bytes, U::kBytes, Between(1LL << 10, 1LL << 30)},
};

const Field<LlmConfig> kLlmFields[] = {
    {"base_url", &LlmConfig::base_url, U::kNone, {}, CheckHttpUrl},
    {"model", &LlmConfig::model},  // Required with base_url: CheckAcross.
    {"api_key_env", &LlmConfig::api_key_env, U::kNone, {}, CheckEnvName},
    {"timeout_ms", &LlmConfig::timeout_ms, U::kMillis, AtLeast(1)},
    {"connect_timeout_ms", &LlmConfig::connect_timeout_ms, U::kMillis, AtLeast(1)},
    {"max_tokens", &LlmConfig::max_tokens, U::kTokens, Between(1, 100000)},
    {"temperature", &LlmConfig::temperature, U::kReal, Between(0, 2)},
};

const Field<IntentsConfig> kIntentsFields[] = {
    {"max_attempts", &IntentsConfig::max_attempts, U::kCount, Between(1, 3)},
    {"exec_budget_ms", &IntentsConfig::exec_budget_ms, U::kMillis, AtLeast(0)},
    {"token_budget", &IntentsConfig::token_budget, U::kTokens, AtLeast(1)},
    {"agents_dir", &IntentsConfig::agents_dir},
    {"agent_match_threshold", &IntentsConfig::agent_match_threshold, U::kReal, Between(0, 1)},
    {"max_intent_bytes", &IntentsConfig::max_intent_bytes, U::kBytes, Between(1, 65536)},
    {"verify", &IntentsConfig::verify, U::kNone, {}, CheckVerifyMode},
};

const Field<Config> kLogFields[] = {
    {"level", &Config::log_level, U::kNone, {}, CheckLogLevel},
    {"format", &Config::log_format, U::kNone, {}, CheckLogFormat},
};

// limits.default and limits.max; ValidateLimitPair checks them.
const Field<Limits> kLimitsFields[] = {
    {"timeout_ms", &Limits::timeout_ms, U::kMillis},
    {"cpu_ms", &Limits::cpu_ms, U::kMillis},
    {"memory_bytes", &Limits::memory_bytes, U::kBytes},
    {"pids", &Limits::pids, U::kCount},
    {"output_bytes", &Limits::output_bytes, U::kBytes},
    {"tmp_bytes", &Limits::tmp_bytes, U::kBytes},
    {"cpus", &Limits::cpus, U::kReal},
};

// tiers.<name>; the sandbox TTLs' order is CheckTier's.
const Field<TierConfig> kTierFields[] = {
    {"max_timeout_ms", &TierConfig::max_timeout_ms, U::kMillis,
     SectionCap(AtLeast(1), kTierLimits)},
    {"max_memory_bytes", &TierConfig::max_memory_bytes, U::kBytes,
     SectionCap(AtLeast(6 << 20), kTierLimits)},
    {"volumes", &TierConfig::volumes},
    {"max_concurrent", &TierConfig::max_concurrent, U::kCount, SectionCap(AtLeast(1), kTierLimits)},
    {"max_queued", &TierConfig::max_queued, U::kCount, SectionCap(AtLeast(1), kTierLimits)},
    {"requests_per_minute", &TierConfig::requests_per_minute, U::kCount,
     SectionCap(AtLeast(1), kTierLimits)},
    {"runtime", &TierConfig::runtime, U::kNone, {}, CheckRuntime},
    {"max_sandboxes", &TierConfig::max_sandboxes, U::kCount, SectionCap(AtLeast(0), kTierSandbox)},
    {"max_sandbox_memory_bytes", &TierConfig::max_sandbox_memory_bytes, U::kBytes,
     SectionCap(AtLeast(0), kTierSandbox)},
    {"sandbox_ttl_s", &TierConfig::sandbox_ttl_s, U::kSeconds,
     SectionCap(AtLeast(1), kTierSandbox)},
    {"max_sandbox_ttl_s", &TierConfig::max_sandbox_ttl_s, U::kSeconds,
     SectionCap(Between(1, 14 * 86400), kTierSandbox)},
    {"max_long_requests", &TierConfig::max_long_requests, U::kCount, AtLeast(0)},
    // At least artifacts.max_total_bytes: CheckAcross.
    {"max_retained_artifact_bytes", &TierConfig::max_retained_artifact_bytes, U::kBytes,
     AtLeast(1)},
    {"max_retained_output_bytes", &TierConfig::max_retained_output_bytes, U::kBytes,
     AtLeast(1 << 20, "must be >= 1048576 (1 MiB)")},
    {"python_index_url", &TierConfig::python_index_url, U::kNone, {}, CheckHttpUrl},
    {"package_allow", &TierConfig::package_allow},
    {"package_deny", &TierConfig::package_deny},
    {"npm_registry_url", &TierConfig::npm_registry_url, U::kNone, {}, CheckHttpUrl},
    {"npm_package_allow", &TierConfig::npm_package_allow},
    {"npm_package_deny", &TierConfig::npm_package_deny},
    {"egress_allow", &TierConfig::egress_allow},      // Each read: CheckTier.
    {"egress_private", &TierConfig::egress_private},  // Likewise.
    {"intent_verify", &TierConfig::intent_verify, U::kNone, {}, CheckTierVerifyMode},
    {"container_reuse", &TierConfig::container_reuse},
};

// languages.<name>; CheckLanguage checks what must be given.
const Field<LanguageSpec> kLanguageFields[] = {
    {"image", &LanguageSpec::image},
    {"file", &LanguageSpec::file},
    {"command", &LanguageSpec::command},
    {"default", &LanguageSpec::is_default},
    {"runtime", &LanguageSpec::runtime, U::kNone, {}, CheckRuntime},
    {"aliases", &LanguageSpec::aliases},
    {"compile", &LanguageSpec::compile},
    {"compile_timeout_ms", &LanguageSpec::compile_timeout_ms, U::kMillis, AtLeast(100)},
    {"compile_memory_bytes", &LanguageSpec::compile_memory_bytes, U::kBytes, AtLeast(6 << 20)},
    {"compile_output_bytes", &LanguageSpec::compile_output_bytes, U::kBytes, AtLeast(1024)},
    {"prestart", &LanguageSpec::prestart},
    {"preload", &LanguageSpec::preload},  // Each a module name: CheckLanguage.
};

const Field<AuthConfig> kAuthFields[] = {
    {"mode", &AuthConfig::mode, U::kNone, {}, CheckAuthMode},
    {"none_tenant", &AuthConfig::none_tenant},
    {"none_tier", &AuthConfig::none_tier},  // Names a tier: CheckAcross.
};

// auth.keys[i].
const Field<ApiKeyConfig> kApiKeyFields[] = {
    {"tenant", &ApiKeyConfig::tenant, U::kNone, {}, CheckRequired},
    {"tier", &ApiKeyConfig::tier},  // Names a tier: CheckAcross.
    {"key_sha256", &ApiKeyConfig::key_sha256, U::kNone, {}, CheckKeySha256},
    {"admin", &ApiKeyConfig::admin},
};

}  // namespace

std::span<const Field<Config>> RootFields() { return kRootFields; }
std::span<const Field<ServerConfig>> ServerFields() { return kServerFields; }
std::span<const Field<EngineConfig>> EngineFields() { return kEngineFields; }
std::span<const Field<SandboxConfig>> SandboxFields() { return kSandboxFields; }
std::span<const Field<FilesConfig>> FilesFields() { return kFilesFields; }
std::span<const Field<ArtifactsConfig>> ArtifactsFields() { return kArtifactsFields; }
std::span<const Field<VolumesConfig>> VolumesFields() { return kVolumesFields; }
std::span<const Field<PoolOptions>> PoolFields() { return kPoolFields; }
std::span<const Field<PackagesConfig>> PackagesFields() { return kPackagesFields; }
std::span<const Field<EgressConfig>> EgressFields() { return kEgressFields; }
std::span<const Field<StoreConfig>> StoreFields() { return kStoreFields; }
std::span<const Field<NodeConfig>> NodeFields() { return kNodeFields; }
std::span<const Field<JobsConfig>> JobsFields() { return kJobsFields; }
std::span<const Field<WebhooksConfig>> WebhooksFields() { return kWebhooksFields; }
std::span<const Field<LlmConfig>> LlmFields() { return kLlmFields; }
std::span<const Field<UiConfig>> UiFields() { return kUiFields; }
std::span<const Field<McpConfig>> McpFields() { return kMcpFields; }
std::span<const Field<E2bConfig>> E2bFields() { return kE2bFields; }
std::span<const Field<IntentsConfig>> IntentsFields() { return kIntentsFields; }
std::span<const Field<Config>> LogFields() { return kLogFields; }
std::span<const Field<Limits>> LimitsFields() { return kLimitsFields; }
std::span<const Field<TierConfig>> TierFields() { return kTierFields; }
std::span<const Field<LanguageSpec>> LanguageFields() { return kLanguageFields; }
std::span<const Field<AuthConfig>> AuthFields() { return kAuthFields; }
std::span<const Field<ApiKeyConfig>> ApiKeyFields() { return kApiKeyFields; }

}  // namespace coderunner::config
