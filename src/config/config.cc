#include "coderunner/config/config.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "coderunner/sandbox/uid_pool.h"

namespace coderunner::config {
namespace {

Status Bad(const std::string& key, const std::string& why) {
  return InvalidArgumentError("config: " + key + ": " + why, "invalid_config");
}

// Rejects any key of map `node` not in `known`, naming it with its full path.
Status CheckKeys(const YAML::Node& node, const std::string& prefix,
                 const std::set<std::string>& known) {
  if (!node.IsMap()) return Bad(prefix.empty() ? "(top level)" : prefix, "expected a mapping");
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    if (known.count(key) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return Bad(prefix.empty() ? key : prefix + "." + key, "unknown key (known: " + list + ")");
    }
  }
  return OkStatus();
}

template <typename T>
Status Read(const YAML::Node& node, const std::string& key, const std::string& path, T* out) {
  YAML::Node v = node[key];
  if (!v) return OkStatus();
  if (!v.IsScalar()) return Bad(path, "expected a scalar");
  try {
    *out = v.as<T>();
  } catch (const YAML::Exception&) {
    return Bad(path, "cannot read '" + v.Scalar() + "' as the expected type");
  }
  return OkStatus();
}

// The OCI runtimes a job may ask for: "" (no preference), runc or runsc.
Status CheckRuntime(const std::string& runtime, const std::string& key) {
  if (runtime.empty() || runtime == "runc" || runtime == "runsc") return OkStatus();
  return Bad(key, "must be runc or runsc, got '" + runtime + "'");
}

Status ReadLimits(const YAML::Node& node, const std::string& path, sandbox::Limits* l) {
  if (!node) return OkStatus();
  CR_RETURN_IF_ERROR(CheckKeys(
      node, path,
      {"timeout_ms", "cpu_ms", "memory_bytes", "pids", "output_bytes", "tmp_bytes", "cpus"}));
  CR_RETURN_IF_ERROR(Read(node, "timeout_ms", path + ".timeout_ms", &l->timeout_ms));
  CR_RETURN_IF_ERROR(Read(node, "cpu_ms", path + ".cpu_ms", &l->cpu_ms));
  CR_RETURN_IF_ERROR(Read(node, "memory_bytes", path + ".memory_bytes", &l->memory_bytes));
  CR_RETURN_IF_ERROR(Read(node, "pids", path + ".pids", &l->pids));
  CR_RETURN_IF_ERROR(Read(node, "output_bytes", path + ".output_bytes", &l->output_bytes));
  CR_RETURN_IF_ERROR(Read(node, "tmp_bytes", path + ".tmp_bytes", &l->tmp_bytes));
  CR_RETURN_IF_ERROR(Read(node, "cpus", path + ".cpus", &l->cpus));
  return OkStatus();
}

Status ReadLanguages(const YAML::Node& node, std::vector<sandbox::LanguageSpec>* out) {
  if (!node.IsMap() || node.size() == 0) return Bad("languages", "expected a non-empty mapping");
  out->clear();
  int defaults = 0;
  for (const auto& kv : node) {
    sandbox::LanguageSpec lang;
    lang.name = kv.first.as<std::string>();
    std::string path = "languages." + lang.name;
    const YAML::Node& v = kv.second;
    CR_RETURN_IF_ERROR(CheckKeys(v, path, {"image", "file", "command", "default", "runtime"}));
    CR_RETURN_IF_ERROR(Read(v, "image", path + ".image", &lang.image));
    CR_RETURN_IF_ERROR(Read(v, "file", path + ".file", &lang.file));
    CR_RETURN_IF_ERROR(Read(v, "default", path + ".default", &lang.is_default));
    CR_RETURN_IF_ERROR(Read(v, "runtime", path + ".runtime", &lang.runtime));
    CR_RETURN_IF_ERROR(CheckRuntime(lang.runtime, path + ".runtime"));
    if (v["command"]) {
      if (!v["command"].IsSequence()) return Bad(path + ".command", "expected a list of strings");
      for (const auto& part : v["command"]) {
        if (!part.IsScalar()) return Bad(path + ".command", "expected a list of strings");
        lang.command.push_back(part.as<std::string>());
      }
    }
    if (lang.image.empty()) return Bad(path + ".image", "is required");
    if (lang.file.empty() || lang.file.find('/') != std::string::npos ||
        lang.file.rfind(".coderunner", 0) == 0 || lang.file == "." || lang.file == "..") {
      return Bad(path + ".file", "must be a plain file name");
    }
    if (lang.command.empty()) return Bad(path + ".command", "is required");
    if (lang.is_default) ++defaults;
    out->push_back(std::move(lang));
  }
  if (defaults > 1) return Bad("languages", "more than one language has default: true");
  return OkStatus();
}

// Tiers given in the file override the defaults of the same name, key by
// key; new names add tiers.
Status ReadTiers(const YAML::Node& node, std::vector<TierConfig>* tiers) {
  if (!node.IsMap()) return Bad("tiers", "expected a mapping");
  for (const auto& kv : node) {
    std::string name = kv.first.as<std::string>();
    std::string path = "tiers." + name;
    TierConfig* t = nullptr;
    for (auto& existing : *tiers) {
      if (existing.name == name) t = &existing;
    }
    if (t == nullptr) {
      tiers->push_back(TierConfig{});
      t = &tiers->back();
      t->name = name;
    }
    CR_RETURN_IF_ERROR(
        CheckKeys(kv.second, path,
                  {"max_timeout_ms", "max_memory_bytes", "volumes", "max_concurrent", "max_queued",
                   "requests_per_minute", "runtime", "max_sandboxes", "max_sandbox_memory_bytes",
                   "sandbox_ttl_s", "max_sandbox_ttl_s", "max_long_requests"}));
    CR_RETURN_IF_ERROR(
        Read(kv.second, "max_timeout_ms", path + ".max_timeout_ms", &t->max_timeout_ms));
    CR_RETURN_IF_ERROR(
        Read(kv.second, "max_memory_bytes", path + ".max_memory_bytes", &t->max_memory_bytes));
    CR_RETURN_IF_ERROR(Read(kv.second, "volumes", path + ".volumes", &t->volumes));
    CR_RETURN_IF_ERROR(
        Read(kv.second, "max_concurrent", path + ".max_concurrent", &t->max_concurrent));
    CR_RETURN_IF_ERROR(Read(kv.second, "max_queued", path + ".max_queued", &t->max_queued));
    CR_RETURN_IF_ERROR(Read(kv.second, "requests_per_minute", path + ".requests_per_minute",
                            &t->requests_per_minute));
    CR_RETURN_IF_ERROR(Read(kv.second, "runtime", path + ".runtime", &t->runtime));
    CR_RETURN_IF_ERROR(CheckRuntime(t->runtime, path + ".runtime"));
    CR_RETURN_IF_ERROR(
        Read(kv.second, "max_sandboxes", path + ".max_sandboxes", &t->max_sandboxes));
    CR_RETURN_IF_ERROR(Read(kv.second, "max_sandbox_memory_bytes",
                            path + ".max_sandbox_memory_bytes", &t->max_sandbox_memory_bytes));
    CR_RETURN_IF_ERROR(
        Read(kv.second, "sandbox_ttl_s", path + ".sandbox_ttl_s", &t->sandbox_ttl_s));
    CR_RETURN_IF_ERROR(
        Read(kv.second, "max_sandbox_ttl_s", path + ".max_sandbox_ttl_s", &t->max_sandbox_ttl_s));
    CR_RETURN_IF_ERROR(
        Read(kv.second, "max_long_requests", path + ".max_long_requests", &t->max_long_requests));
    if (t->max_long_requests < 0) return Bad(path + ".max_long_requests", "must not be negative");
    if (t->max_sandboxes < 0 || t->max_sandbox_memory_bytes < 0 || t->sandbox_ttl_s < 1 ||
        t->max_sandbox_ttl_s < t->sandbox_ttl_s || t->max_sandbox_ttl_s > 14 * 86400) {
      return Bad(path,
                 "sandbox caps must be >= 0, and 1 <= sandbox_ttl_s <= max_sandbox_ttl_s "
                 "<= 1209600 (14 days)");
    }
    if (t->max_timeout_ms < 1 || t->max_memory_bytes < (6LL << 20) || t->max_concurrent < 1 ||
        t->max_queued < 1 || t->requests_per_minute < 1) {
      return Bad(path, "every limit must be positive (memory at least 6 MiB)");
    }
  }
  return OkStatus();
}

Status ReadWebhooks(const YAML::Node& w, WebhooksConfig* out) {
  CR_RETURN_IF_ERROR(
      CheckKeys(w, "webhooks",
                {"secret_env", "threads", "max_pending_per_tenant", "max_in_flight_per_tenant"}));
  CR_RETURN_IF_ERROR(Read(w, "secret_env", "webhooks.secret_env", &out->secret_env));
  CR_RETURN_IF_ERROR(Read(w, "threads", "webhooks.threads", &out->threads));
  CR_RETURN_IF_ERROR(Read(w, "max_pending_per_tenant", "webhooks.max_pending_per_tenant",
                          &out->max_pending_per_tenant));
  CR_RETURN_IF_ERROR(Read(w, "max_in_flight_per_tenant", "webhooks.max_in_flight_per_tenant",
                          &out->max_in_flight_per_tenant));
  if (out->threads < 1 || out->threads > 256) return Bad("webhooks.threads", "must be 1..256");
  if (out->max_pending_per_tenant < 1) {
    return Bad("webhooks.max_pending_per_tenant", "must be at least 1");
  }
  if (out->max_in_flight_per_tenant < 1) {
    return Bad("webhooks.max_in_flight_per_tenant", "must be at least 1");
  }
  return OkStatus();
}

bool IsHex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Status ReadAuth(const YAML::Node& node, AuthConfig* auth) {
  CR_RETURN_IF_ERROR(CheckKeys(node, "auth", {"mode", "keys", "none_tenant", "none_tier"}));
  CR_RETURN_IF_ERROR(Read(node, "mode", "auth.mode", &auth->mode));
  CR_RETURN_IF_ERROR(Read(node, "none_tenant", "auth.none_tenant", &auth->none_tenant));
  CR_RETURN_IF_ERROR(Read(node, "none_tier", "auth.none_tier", &auth->none_tier));
  if (auth->mode != "api_keys" && auth->mode != "none") {
    return Bad("auth.mode", "must be api_keys or none");
  }
  if (YAML::Node keys = node["keys"]) {
    if (!keys.IsSequence()) return Bad("auth.keys", "expected a list");
    for (size_t i = 0; i < keys.size(); ++i) {
      std::string path = "auth.keys[" + std::to_string(i) + "]";
      ApiKeyConfig k;
      CR_RETURN_IF_ERROR(CheckKeys(keys[i], path, {"tenant", "tier", "key_sha256"}));
      CR_RETURN_IF_ERROR(Read(keys[i], "tenant", path + ".tenant", &k.tenant));
      CR_RETURN_IF_ERROR(Read(keys[i], "tier", path + ".tier", &k.tier));
      CR_RETURN_IF_ERROR(Read(keys[i], "key_sha256", path + ".key_sha256", &k.key_sha256));
      if (k.tenant.empty()) return Bad(path + ".tenant", "is required");
      if (!IsHex64(k.key_sha256)) {
        return Bad(path + ".key_sha256",
                   "must be 64 lower-case hex characters (sha256 of the key)");
      }
      auth->keys.push_back(std::move(k));
    }
  }
  return OkStatus();
}

// llm.* and intents.*: bounds, and an API key never written into the file.
Status CheckLlmAndIntents(const Config& c) {
  const LlmConfig& l = c.llm;
  if (!l.base_url.empty() && l.base_url.rfind("http://", 0) != 0 &&
      l.base_url.rfind("https://", 0) != 0) {
    return Bad("llm.base_url", "must start with http:// or https://");
  }
  if (!l.base_url.empty() && l.model.empty()) {
    return Bad("llm.model", "is required when llm.base_url is set");
  }
  if (!l.api_key_env.empty()) {
    // ASCII only, by hand: <cctype> is locale-dependent and undefined for
    // the negative chars of non-ASCII bytes.
    auto letter = [](char ch) { return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'); };
    auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
    bool name = l.api_key_env.size() <= 64 && (letter(l.api_key_env[0]) || l.api_key_env[0] == '_');
    for (char ch : l.api_key_env) name = name && (letter(ch) || digit(ch) || ch == '_');
    if (!name || l.api_key_env.rfind("sk-", 0) == 0) {
      return Bad("llm.api_key_env",
                 "must be the NAME of an environment variable holding the key (e.g. "
                 "OPENAI_API_KEY), never the key itself");
    }
  }
  if (l.timeout_ms < 1) return Bad("llm.timeout_ms", "must be at least 1");
  if (l.connect_timeout_ms < 1) return Bad("llm.connect_timeout_ms", "must be at least 1");
  if (l.max_tokens < 1 || l.max_tokens > 100000) {
    return Bad("llm.max_tokens", "must be between 1 and 100000");
  }
  if (l.temperature < 0 || l.temperature > 2) {
    return Bad("llm.temperature", "must be between 0 and 2");
  }
  const IntentsConfig& n = c.intents;
  if (n.max_attempts < 1 || n.max_attempts > 3) {
    return Bad("intents.max_attempts", "must be between 1 and 3");
  }
  if (n.exec_budget_ms < 1) return Bad("intents.exec_budget_ms", "must be at least 1");
  if (n.token_budget < 1) return Bad("intents.token_budget", "must be at least 1");
  if (n.agent_match_threshold < 0 || n.agent_match_threshold > 1) {
    return Bad("intents.agent_match_threshold", "must be between 0 and 1");
  }
  if (n.max_intent_bytes < 1 || n.max_intent_bytes > 65536) {
    return Bad("intents.max_intent_bytes", "must be between 1 and 65536");
  }
  return OkStatus();
}

StatusOr<Config> ParseNode(const YAML::Node& root) {
  Config c = DefaultConfig();
  if (!root || root.IsNull()) return c;
  CR_RETURN_IF_ERROR(CheckKeys(
      root, "",
      {"server",    "engine",  "sandbox", "workspace_dir", "instance",     "data_dir",  "jobs",
       "files",     "auth",    "tiers",   "limits",        "output_bytes", "languages", "log",
       "artifacts", "volumes", "llm",     "intents",       "pool",         "webhooks"}));
  if (YAML::Node s = root["server"]) {
    CR_RETURN_IF_ERROR(
        CheckKeys(s, "server",
                  {"listen", "max_body_bytes", "threads", "shutdown_grace_s",
                   "long_requests_per_tenant", "probe_cache_ms", "max_json_depth",
                   "request_read_timeout_ms", "max_waiting_connections_per_address"}));
    CR_RETURN_IF_ERROR(Read(s, "listen", "server.listen", &c.server.listen));
    CR_RETURN_IF_ERROR(
        Read(s, "max_body_bytes", "server.max_body_bytes", &c.server.max_body_bytes));
    CR_RETURN_IF_ERROR(Read(s, "threads", "server.threads", &c.server.threads));
    CR_RETURN_IF_ERROR(
        Read(s, "max_json_depth", "server.max_json_depth", &c.server.max_json_depth));
    CR_RETURN_IF_ERROR(
        Read(s, "shutdown_grace_s", "server.shutdown_grace_s", &c.server.shutdown_grace_s));
    CR_RETURN_IF_ERROR(Read(s, "long_requests_per_tenant", "server.long_requests_per_tenant",
                            &c.server.long_requests_per_tenant));
    CR_RETURN_IF_ERROR(
        Read(s, "probe_cache_ms", "server.probe_cache_ms", &c.server.probe_cache_ms));
    if (c.server.long_requests_per_tenant < 0) {
      return Bad("server.long_requests_per_tenant", "must not be negative");
    }
    if (c.server.probe_cache_ms < 0) return Bad("server.probe_cache_ms", "must not be negative");
    CR_RETURN_IF_ERROR(Read(s, "request_read_timeout_ms", "server.request_read_timeout_ms",
                            &c.server.request_read_timeout_ms));
    CR_RETURN_IF_ERROR(Read(s, "max_waiting_connections_per_address",
                            "server.max_waiting_connections_per_address",
                            &c.server.max_waiting_connections_per_address));
    if (c.server.request_read_timeout_ms < 0) {
      return Bad("server.request_read_timeout_ms", "must not be negative");
    }
    if (c.server.max_waiting_connections_per_address < 0) {
      return Bad("server.max_waiting_connections_per_address", "must not be negative");
    }
  }
  if (YAML::Node e = root["engine"]) {
    CR_RETURN_IF_ERROR(CheckKeys(e, "engine", {"socket", "timeout_ms", "connect_timeout_ms"}));
    CR_RETURN_IF_ERROR(Read(e, "socket", "engine.socket", &c.engine.socket));
    CR_RETURN_IF_ERROR(Read(e, "timeout_ms", "engine.timeout_ms", &c.engine.timeout_ms));
    CR_RETURN_IF_ERROR(
        Read(e, "connect_timeout_ms", "engine.connect_timeout_ms", &c.engine.connect_timeout_ms));
  }
  if (YAML::Node s = root["sandbox"]) {
    CR_RETURN_IF_ERROR(CheckKeys(
        s, "sandbox", {"init_path", "runtime", "nofile", "nproc", "uid_first", "uid_count"}));
    CR_RETURN_IF_ERROR(Read(s, "init_path", "sandbox.init_path", &c.sandbox.init_path));
    CR_RETURN_IF_ERROR(Read(s, "runtime", "sandbox.runtime", &c.sandbox.runtime));
    CR_RETURN_IF_ERROR(Read(s, "nofile", "sandbox.nofile", &c.sandbox.nofile));
    CR_RETURN_IF_ERROR(Read(s, "nproc", "sandbox.nproc", &c.sandbox.nproc));
    CR_RETURN_IF_ERROR(Read(s, "uid_first", "sandbox.uid_first", &c.sandbox.uid_first));
    CR_RETURN_IF_ERROR(Read(s, "uid_count", "sandbox.uid_count", &c.sandbox.uid_count));
  }
  CR_RETURN_IF_ERROR(Read(root, "workspace_dir", "workspace_dir", &c.workspace_dir));
  CR_RETURN_IF_ERROR(Read(root, "data_dir", "data_dir", &c.data_dir));
  if (YAML::Node f = root["files"]) {
    CR_RETURN_IF_ERROR(
        CheckKeys(f, "files", {"max_count", "max_depth", "max_total_bytes", "max_inputs_bytes"}));
    CR_RETURN_IF_ERROR(Read(f, "max_count", "files.max_count", &c.files.max_count));
    CR_RETURN_IF_ERROR(Read(f, "max_depth", "files.max_depth", &c.files.max_depth));
    CR_RETURN_IF_ERROR(
        Read(f, "max_total_bytes", "files.max_total_bytes", &c.files.max_total_bytes));
    CR_RETURN_IF_ERROR(
        Read(f, "max_inputs_bytes", "files.max_inputs_bytes", &c.files.max_inputs_bytes));
    if (c.files.max_count < 0 || c.files.max_depth < 1 || c.files.max_depth > 64 ||
        c.files.max_total_bytes < 0 || c.files.max_inputs_bytes < 2) {
      return Bad("files", "caps must be positive (max_depth 1..64)");
    }
  }
  if (YAML::Node p = root["pool"]) {
    CR_RETURN_IF_ERROR(CheckKeys(p, "pool",
                                 {"enabled", "size", "sizes", "max_per_shape", "max_containers",
                                  "max_shapes", "max_idle_s", "fill_parallelism", "shape_idle_s"}));
    sandbox::PoolOptions& o = c.pool;
    CR_RETURN_IF_ERROR(Read(p, "enabled", "pool.enabled", &o.enabled));
    CR_RETURN_IF_ERROR(Read(p, "size", "pool.size", &o.size));
    CR_RETURN_IF_ERROR(Read(p, "max_per_shape", "pool.max_per_shape", &o.max_per_shape));
    CR_RETURN_IF_ERROR(Read(p, "max_containers", "pool.max_containers", &o.max_containers));
    CR_RETURN_IF_ERROR(Read(p, "max_shapes", "pool.max_shapes", &o.max_shapes));
    CR_RETURN_IF_ERROR(Read(p, "max_idle_s", "pool.max_idle_s", &o.max_idle_s));
    CR_RETURN_IF_ERROR(Read(p, "fill_parallelism", "pool.fill_parallelism", &o.fill_parallelism));
    CR_RETURN_IF_ERROR(Read(p, "shape_idle_s", "pool.shape_idle_s", &o.shape_idle_s));
    if (YAML::Node sizes = p["sizes"]) {
      if (!sizes.IsMap()) return Bad("pool.sizes", "expected a mapping of language to count");
      for (const auto& kv : sizes) {
        std::string lang = kv.first.as<std::string>();
        int n = 0;
        CR_RETURN_IF_ERROR(Read(sizes, lang, "pool.sizes." + lang, &n));
        o.sizes[lang] = n;
      }
    }
  }
  if (YAML::Node j = root["jobs"]) {
    CR_RETURN_IF_ERROR(
        CheckKeys(j, "jobs",
                  {"max_concurrent", "max_queued", "retention_s", "cache_ttl_s", "engine_retry_s",
                   "janitor_interval_s", "max_wait_s", "max_batch", "webhook_allow_private"}));
    CR_RETURN_IF_ERROR(Read(j, "max_concurrent", "jobs.max_concurrent", &c.jobs.max_concurrent));
    CR_RETURN_IF_ERROR(Read(j, "max_queued", "jobs.max_queued", &c.jobs.max_queued));
    CR_RETURN_IF_ERROR(Read(j, "retention_s", "jobs.retention_s", &c.jobs.retention_s));
    CR_RETURN_IF_ERROR(Read(j, "cache_ttl_s", "jobs.cache_ttl_s", &c.jobs.cache_ttl_s));
    CR_RETURN_IF_ERROR(Read(j, "engine_retry_s", "jobs.engine_retry_s", &c.jobs.engine_retry_s));
    CR_RETURN_IF_ERROR(
        Read(j, "janitor_interval_s", "jobs.janitor_interval_s", &c.jobs.janitor_interval_s));
    CR_RETURN_IF_ERROR(Read(j, "max_wait_s", "jobs.max_wait_s", &c.jobs.max_wait_s));
    CR_RETURN_IF_ERROR(Read(j, "max_batch", "jobs.max_batch", &c.jobs.max_batch));
    CR_RETURN_IF_ERROR(Read(j, "webhook_allow_private", "jobs.webhook_allow_private",
                            &c.jobs.webhook_allow_private));
  }
  if (YAML::Node w = root["webhooks"]) CR_RETURN_IF_ERROR(ReadWebhooks(w, &c.webhooks));
  if (YAML::Node a = root["artifacts"]) {
    CR_RETURN_IF_ERROR(
        CheckKeys(a, "artifacts", {"dir", "max_file_bytes", "max_total_bytes", "max_files"}));
    CR_RETURN_IF_ERROR(Read(a, "dir", "artifacts.dir", &c.artifacts.dir));
    CR_RETURN_IF_ERROR(
        Read(a, "max_file_bytes", "artifacts.max_file_bytes", &c.artifacts.max_file_bytes));
    CR_RETURN_IF_ERROR(
        Read(a, "max_total_bytes", "artifacts.max_total_bytes", &c.artifacts.max_total_bytes));
    CR_RETURN_IF_ERROR(Read(a, "max_files", "artifacts.max_files", &c.artifacts.max_files));
  }
  if (YAML::Node v = root["volumes"]) {
    CR_RETURN_IF_ERROR(
        CheckKeys(v, "volumes", {"dir", "max_size_bytes", "max_files", "max_per_tenant"}));
    CR_RETURN_IF_ERROR(Read(v, "dir", "volumes.dir", &c.volumes.dir));
    CR_RETURN_IF_ERROR(
        Read(v, "max_size_bytes", "volumes.max_size_bytes", &c.volumes.max_size_bytes));
    CR_RETURN_IF_ERROR(Read(v, "max_files", "volumes.max_files", &c.volumes.max_files));
    CR_RETURN_IF_ERROR(
        Read(v, "max_per_tenant", "volumes.max_per_tenant", &c.volumes.max_per_tenant));
  }
  if (YAML::Node l = root["llm"]) {
    CR_RETURN_IF_ERROR(CheckKeys(l, "llm",
                                 {"base_url", "model", "api_key_env", "timeout_ms",
                                  "connect_timeout_ms", "max_tokens", "temperature"}));
    CR_RETURN_IF_ERROR(Read(l, "base_url", "llm.base_url", &c.llm.base_url));
    CR_RETURN_IF_ERROR(Read(l, "model", "llm.model", &c.llm.model));
    CR_RETURN_IF_ERROR(Read(l, "api_key_env", "llm.api_key_env", &c.llm.api_key_env));
    CR_RETURN_IF_ERROR(Read(l, "timeout_ms", "llm.timeout_ms", &c.llm.timeout_ms));
    CR_RETURN_IF_ERROR(
        Read(l, "connect_timeout_ms", "llm.connect_timeout_ms", &c.llm.connect_timeout_ms));
    CR_RETURN_IF_ERROR(Read(l, "max_tokens", "llm.max_tokens", &c.llm.max_tokens));
    CR_RETURN_IF_ERROR(Read(l, "temperature", "llm.temperature", &c.llm.temperature));
  }
  if (YAML::Node n = root["intents"]) {
    CR_RETURN_IF_ERROR(CheckKeys(n, "intents",
                                 {"max_attempts", "exec_budget_ms", "token_budget", "agents_dir",
                                  "agent_match_threshold", "max_intent_bytes"}));
    CR_RETURN_IF_ERROR(Read(n, "max_attempts", "intents.max_attempts", &c.intents.max_attempts));
    CR_RETURN_IF_ERROR(
        Read(n, "exec_budget_ms", "intents.exec_budget_ms", &c.intents.exec_budget_ms));
    CR_RETURN_IF_ERROR(Read(n, "token_budget", "intents.token_budget", &c.intents.token_budget));
    CR_RETURN_IF_ERROR(Read(n, "agents_dir", "intents.agents_dir", &c.intents.agents_dir));
    CR_RETURN_IF_ERROR(Read(n, "agent_match_threshold", "intents.agent_match_threshold",
                            &c.intents.agent_match_threshold));
    CR_RETURN_IF_ERROR(
        Read(n, "max_intent_bytes", "intents.max_intent_bytes", &c.intents.max_intent_bytes));
  }
  CR_RETURN_IF_ERROR(Read(root, "instance", "instance", &c.instance));
  // Top-level output_bytes is the default per-stream cap, the same value as
  // limits.default.output_bytes; giving both with different values is an error.
  int64_t output_bytes = -1;
  if (root["output_bytes"]) {
    CR_RETURN_IF_ERROR(Read(root, "output_bytes", "output_bytes", &output_bytes));
    if (output_bytes < 0) return Bad("output_bytes", "must not be negative");
    c.default_limits.output_bytes = output_bytes;
  }
  if (YAML::Node l = root["limits"]) {
    CR_RETURN_IF_ERROR(CheckKeys(l, "limits", {"default", "max"}));
    sandbox::Limits before = c.default_limits;
    CR_RETURN_IF_ERROR(ReadLimits(l["default"], "limits.default", &c.default_limits));
    if (output_bytes >= 0 && c.default_limits.output_bytes != before.output_bytes) {
      return Bad("output_bytes", "conflicts with limits.default.output_bytes; set one of them");
    }
    CR_RETURN_IF_ERROR(ReadLimits(l["max"], "limits.max", &c.max_limits));
  }
  if (YAML::Node langs = root["languages"]) CR_RETURN_IF_ERROR(ReadLanguages(langs, &c.languages));
  if (YAML::Node t = root["tiers"]) CR_RETURN_IF_ERROR(ReadTiers(t, &c.tiers));
  if (YAML::Node a = root["auth"]) CR_RETURN_IF_ERROR(ReadAuth(a, &c.auth));
  if (YAML::Node lg = root["log"]) {
    CR_RETURN_IF_ERROR(CheckKeys(lg, "log", {"level", "format"}));
    CR_RETURN_IF_ERROR(Read(lg, "level", "log.level", &c.log_level));
    CR_RETURN_IF_ERROR(Read(lg, "format", "log.format", &c.log_format));
  }

  // Consistency.
  Status pair = sandbox::ValidateLimitPair(c.default_limits, c.max_limits);
  if (!pair.ok()) return Bad("limits.default", pair.message());
  if (c.server.max_body_bytes < 1024) return Bad("server.max_body_bytes", "must be at least 1024");
  if (c.server.max_json_depth < 8 || c.server.max_json_depth > 1000) {
    return Bad("server.max_json_depth", "must be between 8 and 1000");
  }
  if (c.server.threads < 1 || c.server.threads > 4096) {
    return Bad("server.threads", "must be between 1 and 4096");
  }
  if (c.server.listen.rfind(':') == std::string::npos) {
    return Bad("server.listen", "expected host:port, got '" + c.server.listen + "'");
  }
  if (c.engine.timeout_ms < 100) return Bad("engine.timeout_ms", "must be at least 100");
  if (c.engine.connect_timeout_ms < 10) return Bad("engine.connect_timeout_ms", "must be >= 10");
  if (c.data_dir.empty() || c.data_dir.front() != '/') {
    return Bad("data_dir", "must be an absolute path");
  }
  {
    const sandbox::PoolOptions& o = c.pool;
    if (o.size < 0 || o.size > 64) return Bad("pool.size", "must be between 0 and 64");
    for (const auto& [lang, n] : o.sizes) {
      if (c.FindLanguage(lang) == nullptr) {
        return Bad("pool.sizes." + lang, "names no configured language");
      }
      if (n < 0 || n > 64) return Bad("pool.sizes." + lang, "must be between 0 and 64");
    }
    if (o.max_per_shape < 1 || o.max_per_shape > 64) {
      return Bad("pool.max_per_shape", "must be between 1 and 64");
    }
    if (o.max_containers < 1 || o.max_containers > 1024) {
      return Bad("pool.max_containers", "must be between 1 and 1024");
    }
    if (o.max_shapes < 1 || o.max_shapes > 256) {
      return Bad("pool.max_shapes", "must be between 1 and 256");
    }
    if (o.max_idle_s < 1) return Bad("pool.max_idle_s", "must be at least 1");
    if (o.shape_idle_s < 1) return Bad("pool.shape_idle_s", "must be at least 1");
    if (o.fill_parallelism < 1 || o.fill_parallelism > 16) {
      return Bad("pool.fill_parallelism", "must be between 1 and 16");
    }
  }
  if (c.jobs.max_concurrent < 0 || c.jobs.max_concurrent > 1024) {
    return Bad("jobs.max_concurrent", "must be between 0 (= cores) and 1024");
  }
  if (c.jobs.max_queued < 1 || c.jobs.max_queued > 1000000) {
    return Bad("jobs.max_queued", "must be between 1 and 1000000");
  }
  if (c.jobs.retention_s < 60) return Bad("jobs.retention_s", "must be at least 60");
  if (c.jobs.cache_ttl_s < 0) return Bad("jobs.cache_ttl_s", "must not be negative");
  if (c.jobs.engine_retry_s < 0) return Bad("jobs.engine_retry_s", "must not be negative");
  if (c.jobs.janitor_interval_s < 1) return Bad("jobs.janitor_interval_s", "must be at least 1");
  if (c.jobs.max_wait_s < 1 || c.jobs.max_wait_s > 3600) {
    return Bad("jobs.max_wait_s", "must be between 1 and 3600");
  }
  if (c.jobs.max_batch < 1 || c.jobs.max_batch > 1000) {
    return Bad("jobs.max_batch", "must be between 1 and 1000");
  }
  if (c.workspace_dir.empty() || c.workspace_dir.front() != '/') {
    return Bad("workspace_dir", "must be an absolute path");
  }
  for (const auto& [key, dir] :
       {std::pair{"artifacts.dir", c.artifacts.dir}, std::pair{"volumes.dir", c.volumes.dir}}) {
    if (dir.empty() || dir.front() != '/') return Bad(key, "must be an absolute path");
  }
  if (c.artifacts.max_file_bytes < 1 || c.artifacts.max_total_bytes < c.artifacts.max_file_bytes) {
    return Bad("artifacts", "need 1 <= max_file_bytes <= max_total_bytes");
  }
  if (c.artifacts.max_files < 1 || c.artifacts.max_files > 1000000) {
    return Bad("artifacts.max_files", "must be between 1 and 1000000");
  }
  if (c.volumes.max_size_bytes < 4096) return Bad("volumes.max_size_bytes", "must be >= 4096");
  CR_RETURN_IF_ERROR(CheckLlmAndIntents(c));
  if (c.volumes.max_files < 1 || c.volumes.max_files > 10000000) {
    return Bad("volumes.max_files", "must be between 1 and 10000000");
  }
  if (c.volumes.max_per_tenant < 1) return Bad("volumes.max_per_tenant", "must be at least 1");
  CR_RETURN_IF_ERROR(CheckRuntime(c.sandbox.runtime, "sandbox.runtime"));
  for (const auto& k : c.auth.keys) {
    if (c.FindTier(k.tier) == nullptr) {
      return Bad("auth.keys", "tenant " + k.tenant + " names unknown tier '" + k.tier + "'");
    }
  }
  if (c.auth.mode == "none" && c.FindTier(c.auth.none_tier) == nullptr) {
    return Bad("auth.none_tier", "unknown tier '" + c.auth.none_tier + "'");
  }
  static const std::set<std::string> kLevels = {"trace", "debug", "info", "warn", "error"};
  if (kLevels.count(c.log_level) == 0) {
    return Bad("log.level", "must be one of trace, debug, info, warn, error");
  }
  if (c.log_format != "text" && c.log_format != "json") {
    return Bad("log.format", "must be text or json");
  }
  if (c.server.shutdown_grace_s < 0 || c.server.shutdown_grace_s > 3600) {
    return Bad("server.shutdown_grace_s", "must be between 0 and 3600");
  }
  // The janitor removes every container labelled with this instance: an
  // empty value would match all instances sharing the engine.
  if (c.instance.empty() || c.instance.size() > 64) {
    return Bad("instance", "must be 1 to 64 characters");
  }
  if (c.sandbox.nofile < 16 || c.sandbox.nofile > 1048576) {
    return Bad("sandbox.nofile", "must be between 16 and 1048576");
  }
  if (c.sandbox.nproc < 1 || c.sandbox.nproc > 4194304) {
    return Bad("sandbox.nproc", "must be between 1 and 4194304");
  }
  if (Status uids = sandbox::UidPool::Validate(c.sandbox.uid_first, c.sandbox.uid_count);
      !uids.ok()) {
    return Bad("sandbox.uid_first/uid_count", uids.message());
  }
  for (char ch : c.instance) {
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') {
      return Bad("instance", "may only hold letters, digits, '-' and '_'");
    }
  }
  return c;
}

}  // namespace

const sandbox::LanguageSpec& Config::DefaultLanguage() const {
  for (const auto& l : languages) {
    if (l.is_default) return l;
  }
  return languages.front();
}

sandbox::ArtifactCaps Config::ArtifactCapsFromConfig() const {
  sandbox::ArtifactCaps caps;
  caps.max_file_bytes = artifacts.max_file_bytes;
  caps.max_total_bytes = artifacts.max_total_bytes;
  caps.max_files = artifacts.max_files;
  return caps;
}

const TierConfig* Config::FindTier(std::string_view name) const {
  for (const auto& t : tiers) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const TierConfig* Config::TierOfTenant(std::string_view tenant) const {
  for (const auto& k : auth.keys) {
    if (k.tenant == tenant) return FindTier(k.tier);
  }
  return FindTier(auth.none_tier);
}

const sandbox::LanguageSpec* Config::FindLanguage(std::string_view name) const {
  for (const auto& l : languages) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

Config DefaultConfig() {
  Config c;
  c.max_limits.timeout_ms = 60000;
  c.max_limits.cpu_ms = 60000;
  c.max_limits.memory_bytes = 1LL << 30;
  c.max_limits.pids = 256;
  c.max_limits.output_bytes = 8LL << 20;
  c.max_limits.tmp_bytes = 512LL << 20;
  c.max_limits.cpus = 2.0;
  // Tiers of the Execute-mode seed: free 30 s without volumes, pro 2 min,
  // business 10 min, enterprise configurable (the global maxima by default).
  c.tiers = {
      {"free", 30000, 268435456, false, 2, 20, 60, "", 2, 512LL << 20, 3600, 86400},
      {"pro", 120000, 1073741824, true, 4, 100, 600, "", 10, 4LL << 30, 3600, 14 * 86400},
      {"business", 600000, 4294967296, true, 8, 500, 3000, "", 50, 32LL << 30, 3600, 14 * 86400},
      {"enterprise", c.max_limits.timeout_ms, c.max_limits.memory_bytes, true, 64, 10000, 60000, "",
       1000, 1LL << 40, 3600, 14 * 86400},
  };
  c.languages = {
      {"python", "coderunner/python:3.11", "main.py", {"python3", "{file}"}, true, ""},
      {"javascript", "coderunner/node:20", "main.js", {"node", "{file}"}, false, ""},
      {"bash", "coderunner/bash:5", "main.sh", {"bash", "{file}"}, false, ""},
  };
  return c;
}

StatusOr<Config> ParseConfig(std::string_view yaml_text) {
  // yaml-cpp reports errors by exception; this is its boundary.
  try {
    return ParseNode(YAML::Load(std::string(yaml_text)));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string("config: ") + e.what(), "invalid_config");
  }
}

StatusOr<Config> LoadConfigFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return NotFoundError("config: " + path + " is not a readable file", "config_not_found");
  }
  std::ifstream in(path);
  if (!in) return NotFoundError("config: cannot read " + path, "config_not_found");
  std::stringstream ss;
  ss << in.rdbuf();
  auto c = ParseConfig(ss.str());
  if (!c.ok()) return c.status().WithContext(path);
  return c;
}

}  // namespace coderunner::config
