#include "coderunner/config/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace coderunner::config {
namespace {

using ::testing::HasSubstr;

void ExpectLimitsEq(const Limits& a, const Limits& b) {
  EXPECT_EQ(a.timeout_ms, b.timeout_ms);
  EXPECT_EQ(a.cpu_ms, b.cpu_ms);
  EXPECT_EQ(a.memory_bytes, b.memory_bytes);
  EXPECT_EQ(a.pids, b.pids);
  EXPECT_EQ(a.output_bytes, b.output_bytes);
  EXPECT_EQ(a.tmp_bytes, b.tmp_bytes);
  EXPECT_EQ(a.cpus, b.cpus);
}

void ExpectConfigEq(const Config& a, const Config& b) {
  EXPECT_EQ(a.server.listen, b.server.listen);
  EXPECT_EQ(a.server.max_body_bytes, b.server.max_body_bytes);
  EXPECT_EQ(a.server.threads, b.server.threads);
  EXPECT_EQ(a.server.long_requests_per_tenant, b.server.long_requests_per_tenant);
  EXPECT_EQ(a.server.probe_cache_ms, b.server.probe_cache_ms);
  EXPECT_EQ(a.webhooks.secret_env, b.webhooks.secret_env);
  EXPECT_EQ(a.webhooks.threads, b.webhooks.threads);
  EXPECT_EQ(a.webhooks.max_pending_per_tenant, b.webhooks.max_pending_per_tenant);
  EXPECT_EQ(a.webhooks.max_in_flight_per_tenant, b.webhooks.max_in_flight_per_tenant);
  EXPECT_EQ(a.server.max_json_depth, b.server.max_json_depth);
  EXPECT_EQ(a.engine.socket, b.engine.socket);
  EXPECT_EQ(a.engine.timeout_ms, b.engine.timeout_ms);
  EXPECT_EQ(a.engine.connect_timeout_ms, b.engine.connect_timeout_ms);
  EXPECT_EQ(a.sandbox.init_path, b.sandbox.init_path);
  EXPECT_EQ(a.sandbox.runtime, b.sandbox.runtime);
  EXPECT_EQ(a.sandbox.nofile, b.sandbox.nofile);
  EXPECT_EQ(a.sandbox.nproc, b.sandbox.nproc);
  EXPECT_EQ(a.sandbox.ready_sandboxes, b.sandbox.ready_sandboxes);
  EXPECT_EQ(a.workspace_dir, b.workspace_dir);
  EXPECT_EQ(a.instance, b.instance);
  ExpectLimitsEq(a.default_limits, b.default_limits);
  ExpectLimitsEq(a.max_limits, b.max_limits);
  ASSERT_EQ(a.languages.size(), b.languages.size());
  for (size_t i = 0; i < a.languages.size(); ++i) {
    SCOPED_TRACE(a.languages[i].name);
    EXPECT_EQ(a.languages[i].name, b.languages[i].name);
    EXPECT_EQ(a.languages[i].image, b.languages[i].image);
    EXPECT_EQ(a.languages[i].file, b.languages[i].file);
    EXPECT_EQ(a.languages[i].command, b.languages[i].command);
    EXPECT_EQ(a.languages[i].is_default, b.languages[i].is_default);
    EXPECT_EQ(a.languages[i].runtime, b.languages[i].runtime);
    EXPECT_EQ(a.languages[i].prestart, b.languages[i].prestart);
    EXPECT_EQ(a.languages[i].preload, b.languages[i].preload);
  }
  ASSERT_EQ(a.tiers.size(), b.tiers.size());
  for (size_t i = 0; i < a.tiers.size(); ++i) {
    SCOPED_TRACE(a.tiers[i].name);
    EXPECT_EQ(a.tiers[i].name, b.tiers[i].name);
    EXPECT_EQ(a.tiers[i].max_timeout_ms, b.tiers[i].max_timeout_ms);
    EXPECT_EQ(a.tiers[i].max_memory_bytes, b.tiers[i].max_memory_bytes);
    EXPECT_EQ(a.tiers[i].volumes, b.tiers[i].volumes);
    EXPECT_EQ(a.tiers[i].max_concurrent, b.tiers[i].max_concurrent);
    EXPECT_EQ(a.tiers[i].max_queued, b.tiers[i].max_queued);
    EXPECT_EQ(a.tiers[i].requests_per_minute, b.tiers[i].requests_per_minute);
    EXPECT_EQ(a.tiers[i].max_sandboxes, b.tiers[i].max_sandboxes);
    EXPECT_EQ(a.tiers[i].max_sandbox_memory_bytes, b.tiers[i].max_sandbox_memory_bytes);
    EXPECT_EQ(a.tiers[i].sandbox_ttl_s, b.tiers[i].sandbox_ttl_s);
    EXPECT_EQ(a.tiers[i].max_sandbox_ttl_s, b.tiers[i].max_sandbox_ttl_s);
    EXPECT_EQ(a.tiers[i].runtime, b.tiers[i].runtime);
    EXPECT_EQ(a.tiers[i].max_long_requests, b.tiers[i].max_long_requests);
    EXPECT_EQ(a.tiers[i].intent_verify, b.tiers[i].intent_verify);
    EXPECT_EQ(a.tiers[i].container_reuse, b.tiers[i].container_reuse);
    EXPECT_EQ(a.tiers[i].max_retained_artifact_bytes, b.tiers[i].max_retained_artifact_bytes);
    EXPECT_EQ(a.tiers[i].max_retained_output_bytes, b.tiers[i].max_retained_output_bytes);
  }
  EXPECT_EQ(a.log_level, b.log_level);
  EXPECT_EQ(a.files.max_count, b.files.max_count);
  EXPECT_EQ(a.files.max_depth, b.files.max_depth);
  EXPECT_EQ(a.files.max_total_bytes, b.files.max_total_bytes);
  EXPECT_EQ(a.files.max_inputs_bytes, b.files.max_inputs_bytes);
  EXPECT_EQ(a.artifacts.dir, b.artifacts.dir);
  EXPECT_EQ(a.artifacts.max_file_bytes, b.artifacts.max_file_bytes);
  EXPECT_EQ(a.artifacts.max_total_bytes, b.artifacts.max_total_bytes);
  EXPECT_EQ(a.artifacts.max_files, b.artifacts.max_files);
  EXPECT_EQ(a.llm.base_url, b.llm.base_url);
  EXPECT_EQ(a.llm.model, b.llm.model);
  EXPECT_EQ(a.llm.api_key_env, b.llm.api_key_env);
  EXPECT_EQ(a.llm.timeout_ms, b.llm.timeout_ms);
  EXPECT_EQ(a.llm.connect_timeout_ms, b.llm.connect_timeout_ms);
  EXPECT_EQ(a.llm.max_tokens, b.llm.max_tokens);
  EXPECT_EQ(a.llm.temperature, b.llm.temperature);
  EXPECT_EQ(a.intents.max_attempts, b.intents.max_attempts);
  EXPECT_EQ(a.intents.exec_budget_ms, b.intents.exec_budget_ms);
  EXPECT_EQ(a.intents.token_budget, b.intents.token_budget);
  EXPECT_EQ(a.intents.agents_dir, b.intents.agents_dir);
  EXPECT_EQ(a.intents.agent_match_threshold, b.intents.agent_match_threshold);
  EXPECT_EQ(a.intents.max_intent_bytes, b.intents.max_intent_bytes);
  EXPECT_EQ(a.intents.verify, b.intents.verify);
  EXPECT_EQ(a.volumes.dir, b.volumes.dir);
  EXPECT_EQ(a.volumes.max_size_bytes, b.volumes.max_size_bytes);
  EXPECT_EQ(a.volumes.max_files, b.volumes.max_files);
  EXPECT_EQ(a.volumes.max_per_tenant, b.volumes.max_per_tenant);
}

TEST(ConfigTest, DefaultConfigIsSane) {
  Config c = DefaultConfig();
  EXPECT_EQ(c.server.listen, "127.0.0.1:8080");
  EXPECT_EQ(c.server.max_body_bytes, 2LL << 20);
  EXPECT_EQ(c.server.threads, 32);
  EXPECT_EQ(c.server.max_json_depth, 64);
  EXPECT_EQ(c.engine.timeout_ms, 30000);
  EXPECT_EQ(c.workspace_dir, "/var/lib/coderunner/workspaces");
  EXPECT_EQ(c.instance, "default");
  EXPECT_EQ(c.log_level, "info");
  EXPECT_EQ(c.DefaultLanguage().name, "python");
  ASSERT_NE(c.FindLanguage("bash"), nullptr);
  EXPECT_EQ(c.FindLanguage("bash")->command, (std::vector<std::string>{"bash", "{file}"}));
  EXPECT_EQ(c.FindLanguage("cobol"), nullptr);
  EXPECT_TRUE(ValidateLimitPair(c.default_limits, c.max_limits).ok());
}

TEST(ConfigTest, EmptyInputGivesDefaults) {
  for (const char* text : {"", "\n", "# only a comment\n", "~", "---\n"}) {
    SCOPED_TRACE(text);
    auto c = ParseConfig(text);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    ExpectConfigEq(*c, DefaultConfig());
  }
}

TEST(ConfigTest, ReadsEveryKey) {
  const char* yaml = R"(
server:
  listen: 0.0.0.0:9090
  max_body_bytes: 4096
  threads: 8
  max_json_depth: 20
engine:
  socket: /run/podman/podman.sock
  timeout_ms: 5000
  connect_timeout_ms: 100
sandbox:
  init_path: /opt/init
  runtime: runsc
  nofile: 256
  nproc: 1000
workspace_dir: /srv/ws
instance: blue-2
limits:
  default:
    timeout_ms: 2000
    cpu_ms: 1500
    memory_bytes: 67108864
    pids: 16
    output_bytes: 4096
    tmp_bytes: 2097152
    cpus: 0.5
  max:
    timeout_ms: 3000
    cpu_ms: 3000
    memory_bytes: 134217728
    pids: 32
    output_bytes: 8192
    tmp_bytes: 4194304
    cpus: 1.5
languages:
  ruby:
    image: ruby:3
    file: main.rb
    command: [ruby, --disable-gems, "{file}"]
  python:
    image: python:3.12
    file: prog.py
    command: [python3, "{file}"]
    default: true
log:
  level: debug
)";
  auto c = ParseConfig(yaml);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server.listen, "0.0.0.0:9090");
  EXPECT_EQ(c->server.max_body_bytes, 4096);
  EXPECT_EQ(c->server.threads, 8);
  EXPECT_EQ(c->server.max_json_depth, 20);
  EXPECT_EQ(c->engine.socket, "/run/podman/podman.sock");
  EXPECT_EQ(c->engine.timeout_ms, 5000);
  EXPECT_EQ(c->engine.connect_timeout_ms, 100);
  EXPECT_EQ(c->sandbox.init_path, "/opt/init");
  EXPECT_EQ(c->sandbox.runtime, "runsc");
  EXPECT_EQ(c->sandbox.nofile, 256);
  EXPECT_EQ(c->sandbox.nproc, 1000);
  EXPECT_EQ(c->workspace_dir, "/srv/ws");
  EXPECT_EQ(c->instance, "blue-2");
  Limits d{2000, 1500, 64LL << 20, 16, 4096, 2LL << 20, 0.5};
  Limits m{3000, 3000, 128LL << 20, 32, 8192, 4LL << 20, 1.5};
  ExpectLimitsEq(c->default_limits, d);
  ExpectLimitsEq(c->max_limits, m);
  ASSERT_EQ(c->languages.size(), 2u);  // Replaces the built-in list, in file order.
  EXPECT_EQ(c->languages[0].name, "ruby");
  EXPECT_EQ(c->languages[0].image, "ruby:3");
  EXPECT_EQ(c->languages[0].file, "main.rb");
  EXPECT_EQ(c->languages[0].command,
            (std::vector<std::string>{"ruby", "--disable-gems", "{file}"}));
  EXPECT_FALSE(c->languages[0].is_default);
  EXPECT_TRUE(c->languages[1].is_default);
  EXPECT_EQ(c->DefaultLanguage().name, "python");
  EXPECT_EQ(c->log_level, "debug");
}

TEST(ConfigTest, PartialSectionsKeepOtherDefaults) {
  auto c = ParseConfig("server:\n  threads: 4\nlimits:\n  max:\n    pids: 100\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server.threads, 4);
  EXPECT_EQ(c->server.listen, "127.0.0.1:8080");
  EXPECT_EQ(c->max_limits.pids, 100);
  EXPECT_EQ(c->max_limits.timeout_ms, DefaultConfig().max_limits.timeout_ms);
  EXPECT_EQ(c->languages.size(), 9u);
}

TEST(ConfigTest, NoDefaultLanguageMeansTheFirst) {
  auto c = ParseConfig(
      "languages:\n  a:\n    image: i\n    file: f\n    command: [x]\n"
      "  b:\n    image: j\n    file: g\n    command: [y]\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->DefaultLanguage().name, "a");
}

struct BadCase {
  const char* name;
  std::string yaml;
  std::string mention;  // The error must name this key.
};

void ExpectAllRejected(const std::vector<BadCase>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto cfg = ParseConfig(c.yaml);
    ASSERT_FALSE(cfg.ok());
    EXPECT_EQ(cfg.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(cfg.status().reason(), "invalid_config");
    EXPECT_THAT(cfg.status().message(), HasSubstr(c.mention));
    EXPECT_EQ(cfg.status().message().rfind("config: ", 0), 0u) << cfg.status().message();
  }
}

TEST(ConfigTest, UnknownKeyIsRejectedNamingItsFullPath) {
  ExpectAllRejected({
      {"top level", "servr:\n  listen: a:1\n", "servr"},
      {"server", "server:\n  lisen: 0.0.0.0:1\n", "server.lisen"},
      {"engine", "engine:\n  sock: /x\n", "engine.sock"},
      {"sandbox", "sandbox:\n  seccomp: off\n", "sandbox.seccomp"},
      {"limits", "limits:\n  maximum:\n    pids: 1\n", "limits.maximum"},
      {"limits.default", "limits:\n  default:\n    timeout: 5\n", "limits.default.timeout"},
      {"limits.max", "limits:\n  max:\n    memory: 5\n", "limits.max.memory"},
      {"language", "languages:\n  py:\n    image: i\n    file: f\n    command: [x]\n    imag: j\n",
       "languages.py.imag"},
      {"log", "log:\n  lvl: info\n", "log.lvl"},
  });
}

TEST(ConfigTest, WrongTypesAreRejectedNamingTheKey) {
  ExpectAllRejected({
      {"threads not a number", "server:\n  threads: many\n", "server.threads"},
      {"threads fractional", "server:\n  threads: 1.5\n", "server.threads"},
      {"max_body_bytes a word", "server:\n  max_body_bytes: lots\n", "server.max_body_bytes"},
      {"listen a list", "server:\n  listen: [a, b]\n", "server.listen"},
      {"timeout a map", "engine:\n  timeout_ms: {a: 1}\n", "engine.timeout_ms"},
      {"nofile string", "sandbox:\n  nofile: lots\n", "sandbox.nofile"},
      {"cpus string", "limits:\n  default:\n    cpus: fast\n", "limits.default.cpus"},
      {"pids overflow", "limits:\n  max:\n    pids: 99999999999999999999999\n", "limits.max.pids"},
      {"default flag",
       "languages:\n  py:\n    image: i\n    file: f\n    command: [x]\n"
       "    default: maybe\n",
       "languages.py.default"},
      {"command a string", "languages:\n  py:\n    image: i\n    file: f\n    command: python3 x\n",
       "languages.py.command"},
      {"server a scalar", "server: 5\n", "server"},
      {"limits a list", "limits: [1]\n", "limits"},
      {"languages a list of unknown names", "languages: [cobol]\n", "languages"},
      {"languages empty", "languages: {}\n", "languages"},
      {"language a scalar", "languages:\n  py: python3\n", "languages.py"},
      {"command element a list",
       "languages:\n  py:\n    image: i\n    file: f\n    command: [[python3]]\n",
       "languages.py.command"},
  });
}

TEST(ConfigTest, LlmAndIntentsAreValidated) {
  ExpectAllRejected({
      {"unknown llm key", "llm:\n  url: http://x\n", "llm.url"},
      {"unknown intents key", "intents:\n  retries: 2\n", "intents.retries"},
      {"base_url scheme", "llm: {base_url: ftp://x, model: m}\n", "llm.base_url"},
      {"model missing", "llm: {base_url: \"http://x/v1\"}\n", "llm.model"},
      {"a key instead of its variable", "llm: {api_key_env: sk-abc123}\n", "llm.api_key_env"},
      {"variable name with a dash", "llm: {api_key_env: MY-KEY}\n", "llm.api_key_env"},
      {"timeout zero", "llm: {timeout_ms: 0}\n", "llm.timeout_ms"},
      {"max_tokens zero", "llm: {max_tokens: 0}\n", "llm.max_tokens"},
      {"temperature", "llm: {temperature: 3}\n", "llm.temperature"},
      {"attempts above 3", "intents: {max_attempts: 4}\n", "intents.max_attempts"},
      {"attempts zero", "intents: {max_attempts: 0}\n", "intents.max_attempts"},
      {"exec budget", "intents: {exec_budget_ms: -1}\n", "intents.exec_budget_ms"},
      {"token budget", "intents: {token_budget: 0}\n", "intents.token_budget"},
      {"threshold", "intents: {agent_match_threshold: 1.5}\n", "intents.agent_match_threshold"},
      {"intent bytes", "intents: {max_intent_bytes: 0}\n", "intents.max_intent_bytes"},
      {"base_url without a scheme", "llm: {base_url: \"api.openai.com/v1\", model: m}\n",
       "llm.base_url"},
      {"a long key instead of its variable", "llm: {api_key_env: " + std::string(65, 'A') + "}\n",
       "NAME"},
      {"variable name starting with a digit", "llm: {api_key_env: 1KEY}\n", "llm.api_key_env"},
      {"variable name not ASCII", "llm: {api_key_env: \"K\u00e9Y\"}\n", "llm.api_key_env"},
      {"connect timeout zero", "llm: {connect_timeout_ms: 0}\n", "llm.connect_timeout_ms"},
      {"timeout negative", "llm: {timeout_ms: -5}\n", "llm.timeout_ms"},
      {"max_tokens above 100000", "llm: {max_tokens: 100001}\n", "llm.max_tokens"},
      {"temperature negative", "llm: {temperature: -0.1}\n", "llm.temperature"},
      {"temperature a word", "llm: {temperature: hot}\n", "llm.temperature"},
      {"threshold negative", "intents: {agent_match_threshold: -0.1}\n",
       "intents.agent_match_threshold"},
      {"intent bytes above 64 KiB", "intents: {max_intent_bytes: 65537}\n",
       "intents.max_intent_bytes"},
      {"llm a list", "llm: [a]\n", "llm"},
      {"verify mode", "intents: {verify: sometimes}\n",
       "intents.verify: must be off, checks or full, got 'sometimes'"},
      {"a tier's verify mode", "tiers: {free: {intent_verify: on}}\n",
       "tiers.free.intent_verify: must be off, checks or full, got 'on'"},
      {"a preload name with a space",
       "languages: {python: {image: i, file: m.py, command: [python3, '{file}'], prestart: [p],\n"
       "  preload: ['numpy; x']}}\n",
       "languages.python.preload: 'numpy; x' is not a module name"},
      {"a preload without a prestart",
       "languages: {python: {image: i, file: m.py, command: [python3, '{file}'], preload: "
       "[numpy]}}\n",
       "languages.python.preload: needs a prestart command"},
      {"reuse_max_jobs zero", "pool: {reuse_max_jobs: 0}\n", "pool.reuse_max_jobs"},
      {"container_reuse a word", "tiers: {free: {container_reuse: sometimes}}\n",
       "tiers.free.container_reuse"},
  });
}

TEST(ConfigTest, LlmAndIntentsAcceptTheirBounds) {
  const char* good[] = {
      "llm: {base_url: \"https://api.openai.com/v1\", model: gpt-4o-mini}\n",
      "llm: {api_key_env: _K}\n",
      "llm: {api_key_env: OPENAI_API_KEY_2}\n",
      "llm: {max_tokens: 1, temperature: 0}\n",
      "llm: {max_tokens: 100000, temperature: 2}\n",
      "intents: {max_attempts: 1, agent_match_threshold: 0, max_intent_bytes: 1}\n",
      "intents: {max_attempts: 3, agent_match_threshold: 1, max_intent_bytes: 65536}\n",
      "intents: {verify: checks}\ntiers: {pro: {intent_verify: full}}\n",
  };
  for (const char* yaml : good) {
    SCOPED_TRACE(yaml);
    auto c = ParseConfig(yaml);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
  }
}

TEST(ConfigTest, AKeyPutInApiKeyEnvIsNeverEchoed) {
  auto c = ParseConfig("llm: {api_key_env: sk-proj-abcdef123456}\n");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("NAME"));
  EXPECT_THAT(c.status().message(), ::testing::Not(HasSubstr("abcdef123456")));
}

TEST(ConfigTest, LlmAndIntentsAreRead) {
  auto c = ParseConfig(
      "llm: {base_url: \"http://127.0.0.1:11434/v1\", model: llama3, api_key_env: OPENAI_API_KEY,"
      " timeout_ms: 5000, connect_timeout_ms: 100, max_tokens: 500, temperature: 0.2}\n"
      "intents: {max_attempts: 2, exec_budget_ms: 9000, token_budget: 777, agents_dir: /a,"
      " agent_match_threshold: 0.25, max_intent_bytes: 100}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->llm.base_url, "http://127.0.0.1:11434/v1");
  EXPECT_EQ(c->llm.model, "llama3");
  EXPECT_EQ(c->llm.api_key_env, "OPENAI_API_KEY");
  EXPECT_EQ(c->llm.timeout_ms, 5000);
  EXPECT_EQ(c->llm.connect_timeout_ms, 100);
  EXPECT_EQ(c->llm.max_tokens, 500);
  EXPECT_DOUBLE_EQ(c->llm.temperature, 0.2);
  EXPECT_EQ(c->intents.max_attempts, 2);
  EXPECT_EQ(c->intents.exec_budget_ms, 9000);
  EXPECT_EQ(c->intents.token_budget, 777);
  EXPECT_EQ(c->intents.agents_dir, "/a");
  EXPECT_DOUBLE_EQ(c->intents.agent_match_threshold, 0.25);
  EXPECT_EQ(c->intents.max_intent_bytes, 100);
}

TEST(ConfigTest, TopLevelThatIsNotAMappingIsRejected) {
  for (const char* text : {"- a\n- b\n", "just a string", "42"}) {
    SCOPED_TRACE(text);
    auto c = ParseConfig(text);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().reason(), "invalid_config");
  }
}

TEST(ConfigTest, MalformedYamlIsInvalidConfig) {
  auto c = ParseConfig("server:\n  listen: [unclosed\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().reason(), "invalid_config");
}

TEST(ConfigTest, InconsistentLimitsAreRejected) {
  ExpectAllRejected({
      {"default above built-in max", "limits:\n  default:\n    timeout_ms: 70000\n", "timeout_ms"},
      {"max lowered below default", "limits:\n  max:\n    pids: 10\n", "pids"},
      {"default below floor", "limits:\n  default:\n    memory_bytes: 1024\n", "memory_bytes"},
      {"cpus above max", "limits:\n  default:\n    cpus: 4\n", "cpus"},
  });
}

TEST(ConfigTest, TopLevelOutputBytesSetsTheDefaultCap) {
  auto c = ParseConfig("output_bytes: 4096\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->default_limits.output_bytes, 4096);
  // Both spellings with the same value agree.
  c = ParseConfig("output_bytes: 4096\nlimits:\n  default:\n    output_bytes: 4096\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->default_limits.output_bytes, 4096);
  // Only the nested one.
  c = ParseConfig("limits:\n  default:\n    output_bytes: 2048\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->default_limits.output_bytes, 2048);
}

TEST(ConfigTest, OutputBytesConflictsAndBadValuesAreRejected) {
  ExpectAllRejected({
      {"conflict", "output_bytes: 4096\nlimits:\n  default:\n    output_bytes: 2048\n",
       "output_bytes"},
      {"conflict with the built-in default value",
       "output_bytes: 4096\nlimits:\n  default:\n    output_bytes: 1048576\n", "output_bytes"},
      {"above max", "output_bytes: 999999999\n", "output_bytes"},
      {"not a number", "output_bytes: lots\n", "output_bytes"},
      // A negative cap must not be silently ignored in favour of the default.
      {"negative", "output_bytes: -5\n", "output_bytes"},
  });
}

TEST(ConfigTest, LanguageDefinitionsAreValidated) {
  const std::string ok_tail = "    image: i\n    command: [x, \"{file}\"]\n";
  ExpectAllRejected({
      {"two defaults",
       "languages:\n  a:\n    image: i\n    file: a.x\n    command: [x]\n    default: true\n"
       "  b:\n    image: i\n    file: b.x\n    command: [x]\n    default: true\n",
       "languages"},
      {"file with slash", "languages:\n  a:\n    file: dir/main.py\n" + ok_tail,
       "languages.a.file"},
      {"file reserved", "languages:\n  a:\n    file: .coderunner-stdin\n" + ok_tail,
       "languages.a.file"},
      {"file dot-dot", "languages:\n  a:\n    file: ..\n" + ok_tail, "languages.a.file"},
      {"file dot", "languages:\n  a:\n    file: .\n" + ok_tail, "languages.a.file"},
      {"file empty", "languages:\n  a:\n    file: \"\"\n" + ok_tail, "languages.a.file"},
      {"file missing", "languages:\n  a:\n" + ok_tail, "languages.a.file"},
      {"image missing", "languages:\n  a:\n    file: m\n    command: [x]\n", "languages.a.image"},
      {"command missing", "languages:\n  a:\n    image: i\n    file: m\n", "languages.a.command"},
      {"command empty", "languages:\n  a:\n    image: i\n    file: m\n    command: []\n",
       "languages.a.command"},
  });
}

TEST(ConfigTest, OtherValuesAreRangeChecked) {
  ExpectAllRejected({
      {"bad log level", "log:\n  level: verbose\n", "log.level"},
      {"log level case", "log:\n  level: INFO\n", "log.level"},
      {"tiny body limit", "server:\n  max_body_bytes: 10\n", "server.max_body_bytes"},
      {"zero threads", "server:\n  threads: 0\n", "server.threads"},
      {"too many threads", "server:\n  threads: 5000\n", "server.threads"},
      {"JSON depth too small", "server:\n  max_json_depth: 7\n", "server.max_json_depth"},
      {"JSON depth too large", "server:\n  max_json_depth: 1001\n", "server.max_json_depth"},
      {"ready sandboxes past 16", "sandbox:\n  ready_sandboxes: 17\n", "sandbox.ready_sandboxes"},
      {"ready sandboxes negative", "sandbox:\n  ready_sandboxes: -1\n", "sandbox.ready_sandboxes"},
      {"listen without port", "server:\n  listen: localhost\n", "server.listen"},
      {"engine timeout too small", "engine:\n  timeout_ms: 5\n", "engine.timeout_ms"},
      {"connect timeout too small", "engine:\n  connect_timeout_ms: 1\n",
       "engine.connect_timeout_ms"},
      {"relative workspace", "workspace_dir: var/ws\n", "workspace_dir"},
      {"empty workspace", "workspace_dir: \"\"\n", "workspace_dir"},
      {"unknown runtime", "sandbox:\n  runtime: kata\n", "sandbox.runtime"},
      {"relative artifacts dir", "artifacts:\n  dir: art\n", "artifacts.dir"},
      {"artifact file cap above total", "artifacts:\n  max_file_bytes: 10\n  max_total_bytes: 5\n",
       "artifacts"},
      {"zero artifact files", "artifacts:\n  max_files: 0\n", "artifacts.max_files"},
      {"unknown artifacts key", "artifacts:\n  ttl: 5\n", "artifacts.ttl"},
      {"relative volumes dir", "volumes:\n  dir: vol\n", "volumes.dir"},
      {"tiny volumes", "volumes:\n  max_size_bytes: 10\n", "volumes.max_size_bytes"},
      {"zero volumes per tenant", "volumes:\n  max_per_tenant: 0\n", "volumes.max_per_tenant"},
      {"instance with space", "instance: a b\n", "instance"},
      {"instance with dot", "instance: a.b\n", "instance"},
      {"instance with slash", "instance: a/b\n", "instance"},
      // An empty instance label would make the janitor's label filter match
      // the key alone, i.e. every instance's containers.
      {"empty instance", "instance: \"\"\n", "instance"},
  });
}

TEST(ConfigTest, ArtifactsAndVolumesKeysAreRead) {
  auto c = ParseConfig(
      "artifacts: {dir: /a, max_file_bytes: 10, max_total_bytes: 20, max_files: 3}\n"
      "volumes: {dir: /v, max_size_bytes: 8192, max_files: 7, max_per_tenant: 2}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->artifacts.dir, "/a");
  EXPECT_EQ(c->artifacts.max_file_bytes, 10);
  EXPECT_EQ(c->artifacts.max_total_bytes, 20);
  EXPECT_EQ(c->artifacts.max_files, 3);
  EXPECT_EQ(c->volumes.dir, "/v");
  EXPECT_EQ(c->volumes.max_size_bytes, 8192);
  EXPECT_EQ(c->volumes.max_files, 7);
  EXPECT_EQ(c->volumes.max_per_tenant, 2);
  auto d = ParseConfig("");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->artifacts.max_file_bytes, 10 << 20);
  EXPECT_EQ(d->artifacts.max_total_bytes, 100 << 20);
}

TEST(ConfigTest, RuntimeRuncIsAccepted) {
  auto c = ParseConfig("sandbox:\n  runtime: runc\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sandbox.runtime, "runc");
}

TEST(ConfigTest, RuntimeKeysTakeRuncRunscOrEmptyForEachLevel) {
  struct Case {
    std::string value;  // As written in YAML.
    std::string want;
  };
  const Case cases[] = {{"runc", "runc"}, {"runsc", "runsc"}, {"\"\"", ""}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.value);
    auto cfg = ParseConfig("sandbox: {runtime: " + c.value +
                           "}\n"
                           "languages:\n  py: {image: i, file: m.py, command: [x], runtime: " +
                           c.value +
                           "}\n"
                           "tiers:\n  free: {runtime: " +
                           c.value + "}\n  gold: {runtime: " + c.value + "}\n");
    ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
    EXPECT_EQ(cfg->sandbox.runtime, c.want);
    ASSERT_NE(cfg->FindLanguage("py"), nullptr);
    EXPECT_EQ(cfg->FindLanguage("py")->runtime, c.want);
    ASSERT_NE(cfg->FindTier("free"), nullptr);
    EXPECT_EQ(cfg->FindTier("free")->runtime, c.want);
    // Setting a tier's runtime keeps its other built-in values.
    EXPECT_EQ(cfg->FindTier("free")->max_timeout_ms, 30000);
    ASSERT_NE(cfg->FindTier("gold"), nullptr);
    EXPECT_EQ(cfg->FindTier("gold")->runtime, c.want);
  }
}

TEST(ConfigTest, RuntimesDefaultToNoPreference) {
  Config c = DefaultConfig();
  EXPECT_EQ(c.sandbox.runtime, "");
  for (const auto& l : c.languages) EXPECT_EQ(l.runtime, "") << l.name;
  for (const auto& t : c.tiers) EXPECT_EQ(t.runtime, "") << t.name;
}

TEST(ConfigTest, UnknownRuntimesAreRejectedNamingTheKey) {
  const std::string lang = "languages:\n  py: {image: i, file: m.py, command: [x], runtime: ";
  ExpectAllRejected({
      {"sandbox kata", "sandbox: {runtime: kata}\n", "sandbox.runtime"},
      {"sandbox upper case", "sandbox: {runtime: RUNSC}\n", "sandbox.runtime"},
      {"language kata", lang + "kata}\n", "languages.py.runtime"},
      {"language path", lang + "/usr/bin/runsc}\n", "languages.py.runtime"},
      {"language with space", lang + "\"runsc \"}\n", "languages.py.runtime"},
      {"language list", lang + "[runsc]}\n", "languages.py.runtime"},
      {"tier kata", "tiers: {free: {runtime: kata}}\n", "tiers.free.runtime"},
      {"new tier crun", "tiers: {gold: {runtime: crun}}\n", "tiers.gold.runtime"},
      {"tier mapping", "tiers: {pro: {runtime: {name: runsc}}}\n", "tiers.pro.runtime"},
  });
}

TEST(ConfigTest, LoadConfigFileOfMissingFileIsNotFound) {
  auto c = LoadConfigFile(::testing::TempDir() + "/coderunner-no-such-config.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
}

// A directory opens as a stream but cannot be read; it must not silently
// yield the built-in defaults.
TEST(ConfigTest, LoadConfigFileOfADirectoryIsNotFound) {
  auto c = LoadConfigFile(::testing::TempDir());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
}

TEST(ConfigTest, LoadConfigFileParsesAndPrefixesErrorsWithThePath) {
  const std::string path = ::testing::TempDir() + "/coderunner-config-test.yaml";
  { std::ofstream(path) << "server:\n  threads: 3\n"; }
  auto c = LoadConfigFile(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server.threads, 3);
  { std::ofstream(path) << "server:\n  lisen: x\n"; }
  c = LoadConfigFile(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().reason(), "invalid_config");
  EXPECT_THAT(c.status().message(), HasSubstr(path));
  EXPECT_THAT(c.status().message(), HasSubstr("server.lisen"));
  std::filesystem::remove(path);
}

TEST(ConfigTest, ShippedReferenceConfigParsesToTheBuiltInDefaults) {
  const std::string path = std::string(CODERUNNER_TESTDATA) + "/../../config/coderunner.yaml";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " does not exist yet";
  auto c = LoadConfigFile(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  // The file documents itself as "every key shown with its default".
  ExpectConfigEq(*c, DefaultConfig());
}

TEST(ConfigTest, TierSandboxKeysParseAndBadOnesAreRejected) {
  auto c = ParseConfig(
      "tiers: {pro: {max_sandboxes: 3, max_sandbox_memory_bytes: 1000000000, sandbox_ttl_s: 60,\n"
      "              max_sandbox_ttl_s: 600}}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const config::TierConfig* pro = c->FindTier("pro");
  EXPECT_EQ(pro->max_sandboxes, 3);
  EXPECT_EQ(pro->max_sandbox_memory_bytes, 1000000000);
  EXPECT_EQ(pro->sandbox_ttl_s, 60);
  EXPECT_EQ(pro->max_sandbox_ttl_s, 600);
  EXPECT_EQ(c->FindTier("free")->max_sandboxes, 2) << "other tiers keep their defaults";
  ExpectAllRejected({
      {"ttl over the max", "tiers: {pro: {sandbox_ttl_s: 700, max_sandbox_ttl_s: 600}}\n",
       "tiers.pro"},
      {"max over 14 days", "tiers: {pro: {max_sandbox_ttl_s: 1209601}}\n", "tiers.pro"},
      {"negative count", "tiers: {pro: {max_sandboxes: -1}}\n", "tiers.pro"},
  });
}

TEST(ConfigTest, PoolKeysParseWithUnitsAndDefaults) {
  auto d = ParseConfig("");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->pool.enabled);
  EXPECT_EQ(d->pool.size, 2);
  EXPECT_EQ(d->pool.max_idle_s, 300);
  auto c = ParseConfig(
      "pool: {enabled: false, size: 3, sizes: {bash: 0}, max_per_shape: 4, max_containers: 9,\n"
      "       max_shapes: 2, max_idle_s: 60, fill_parallelism: 1, shape_idle_s: 30}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->pool.enabled);
  EXPECT_EQ(c->pool.size, 3);
  EXPECT_EQ(c->pool.sizes.at("bash"), 0);
  EXPECT_EQ(c->pool.max_per_shape, 4);
  EXPECT_EQ(c->pool.max_containers, 9);
  EXPECT_EQ(c->pool.max_shapes, 2);
  EXPECT_EQ(c->pool.max_idle_s, 60);
  EXPECT_EQ(c->pool.fill_parallelism, 1);
  EXPECT_EQ(c->pool.shape_idle_s, 30);
  // Container reuse: the pool's bounds, and the tier's choice (off by
  // default for every built-in tier).
  EXPECT_EQ(d->pool.reuse_idle_ms, 2000);
  EXPECT_EQ(d->pool.reuse_max_jobs, 500);
  for (const auto& t : d->tiers) EXPECT_FALSE(t.container_reuse) << t.name;
  auto r = ParseConfig(
      "pool: {reuse_idle_ms: 500, reuse_max_jobs: 9}\ntiers: {pro: {container_reuse: true}}\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->pool.reuse_idle_ms, 500);
  EXPECT_EQ(r->pool.reuse_max_jobs, 9);
  EXPECT_TRUE(r->FindTier("pro")->container_reuse);
  EXPECT_FALSE(r->FindTier("free")->container_reuse);
}

TEST(ConfigTest, PythonAndNodePrestartAndOnlyPythonPreloads) {
  auto d = ParseConfig("");
  ASSERT_TRUE(d.ok());
  for (const auto& l : d->languages) {
    SCOPED_TRACE(l.name);
    if (l.name == "python") {
      EXPECT_EQ(l.prestart, (std::vector<std::string>{"python3", "-c", "{python_prestart}"}));
      EXPECT_EQ(l.preload,
                (std::vector<std::string>{"numpy", "pandas", "matplotlib", "matplotlib.pyplot"}));
    } else if (l.name == "javascript" || l.name == "typescript") {
      EXPECT_EQ(l.prestart, (std::vector<std::string>{"node", "-e", "{node_prestart}"}));
      EXPECT_TRUE(l.preload.empty());
    } else {
      EXPECT_TRUE(l.prestart.empty());
      EXPECT_TRUE(l.preload.empty());
    }
  }
  EXPECT_NE(config::PythonPrestartScript().find("os._exit"), std::string_view::npos);
  EXPECT_NE(config::NodePrestartScript().find("runMain"), std::string_view::npos);
  auto own = ParseConfig(
      "languages: {python: {image: i, file: m.py, command: [python3, '{file}'],\n"
      "  prestart: [python3, -c, '{python_prestart}'], preload: [numpy, scipy.stats]}}\n");
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  EXPECT_EQ(own->languages[0].preload, (std::vector<std::string>{"numpy", "scipy.stats"}));
}

TEST(ConfigTest, BadPoolValuesAreRejectedNamingTheKey) {
  ExpectAllRejected({
      {"unknown key", "pool: {sise: 1}\n", "pool.sise"},
      {"negative size", "pool: {size: -1}\n", "pool.size"},
      {"unknown language", "pool: {sizes: {ruby: 1}}\n", "pool.sizes.ruby"},
      {"sizes not a map", "pool: {sizes: [1]}\n", "pool.sizes"},
      {"no fillers", "pool: {fill_parallelism: 0}\n", "pool.fill_parallelism"},
      {"zero idle", "pool: {max_idle_s: 0}\n", "pool.max_idle_s"},
      {"zero containers", "pool: {max_containers: 0}\n", "pool.max_containers"},
      {"wrong type", "pool: {enabled: maybe}\n", "pool.enabled"},
  });
}

TEST(ConfigTest, LogFormatAndShutdownGraceAreReadAndValidated) {
  auto c = ParseConfig("log:\n  format: json\nserver:\n  shutdown_grace_s: 5\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->log_format, "json");
  EXPECT_EQ(c->server.shutdown_grace_s, 5);
  c = ParseConfig("");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->log_format, "text");
  EXPECT_EQ(c->server.shutdown_grace_s, 20);
  ExpectAllRejected({
      {"unknown format", "log:\n  format: xml\n", "log.format"},
      {"negative grace", "server:\n  shutdown_grace_s: -1\n", "server.shutdown_grace_s"},
      {"grace above an hour", "server:\n  shutdown_grace_s: 3601\n", "server.shutdown_grace_s"},
  });
}

}  // namespace
}  // namespace coderunner::config

namespace coderunner::config {
namespace {

TEST(ConfigTest, FairnessAndWebhookKeysAreReadWithTheirDefaults) {
  auto d = ParseConfig("");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->server.long_requests_per_tenant, 0);
  EXPECT_EQ(d->server.probe_cache_ms, 1000);
  EXPECT_EQ(d->FindTier("free")->max_long_requests, 0);
  EXPECT_EQ(d->webhooks.secret_env, "");
  EXPECT_EQ(d->webhooks.threads, 4);
  EXPECT_EQ(d->webhooks.max_pending_per_tenant, 1000);
  EXPECT_EQ(d->webhooks.max_in_flight_per_tenant, 1);

  auto c = ParseConfig(
      "server: {long_requests_per_tenant: 3, probe_cache_ms: 0}\n"
      "tiers:\n  free: {max_long_requests: 1}\n"
      "webhooks: {secret_env: HOOK_SECRET, threads: 8, max_pending_per_tenant: 10,"
      " max_in_flight_per_tenant: 2}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server.long_requests_per_tenant, 3);
  EXPECT_EQ(c->server.probe_cache_ms, 0);
  EXPECT_EQ(c->FindTier("free")->max_long_requests, 1);
  EXPECT_EQ(c->FindTier("pro")->max_long_requests, 0);
  EXPECT_EQ(c->webhooks.secret_env, "HOOK_SECRET");
  EXPECT_EQ(c->webhooks.threads, 8);
  EXPECT_EQ(c->webhooks.max_pending_per_tenant, 10);
  EXPECT_EQ(c->webhooks.max_in_flight_per_tenant, 2);

  ExpectAllRejected({
      {"negative long requests", "server: {long_requests_per_tenant: -1}\n",
       "server.long_requests_per_tenant"},
      {"negative probe cache", "server: {probe_cache_ms: -1}\n", "server.probe_cache_ms"},
      {"negative tier long requests", "tiers:\n  free: {max_long_requests: -2}\n",
       "tiers.free.max_long_requests"},
      {"no webhook threads", "webhooks: {threads: 0}\n", "webhooks.threads"},
      {"no pending webhooks", "webhooks: {max_pending_per_tenant: 0}\n",
       "webhooks.max_pending_per_tenant"},
      {"no in-flight webhooks", "webhooks: {max_in_flight_per_tenant: 0}\n",
       "webhooks.max_in_flight_per_tenant"},
      {"unknown webhooks key", "webhooks: {secret: x}\n", "webhooks.secret"},
  });
}

TEST(ConfigTest, TiersBoundWhatATenantsFinishedJobsKeep) {
  auto d = ParseConfig("");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  struct Want {
    const char* tier;
    int64_t artifacts;
    int64_t output;
  };
  for (const Want& w :
       {Want{"free", 256LL << 20, 64LL << 20}, Want{"pro", 2LL << 30, 512LL << 20},
        Want{"business", 16LL << 30, 4LL << 30}, Want{"enterprise", 128LL << 30, 32LL << 30}}) {
    SCOPED_TRACE(w.tier);
    EXPECT_EQ(d->FindTier(w.tier)->max_retained_artifact_bytes, w.artifacts);
    EXPECT_EQ(d->FindTier(w.tier)->max_retained_output_bytes, w.output);
  }
  auto c = ParseConfig(
      "artifacts: {max_file_bytes: 1048576, max_total_bytes: 8388608}\n"
      "tiers:\n  free: {max_retained_artifact_bytes: 8388608, max_retained_output_bytes: 1048576}\n"
      "  tiny: {max_retained_artifact_bytes: 20971520}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->FindTier("free")->max_retained_artifact_bytes, 8 << 20);
  EXPECT_EQ(c->FindTier("free")->max_retained_output_bytes, 1 << 20);
  EXPECT_EQ(c->FindTier("tiny")->max_retained_artifact_bytes, 20 << 20);
  EXPECT_EQ(c->FindTier("tiny")->max_retained_output_bytes, 64 << 20);  // A new tier: free's.

  ExpectAllRejected({
      // One job's artifacts must fit, else they would go as soon as kept.
      {"artifacts below one job's", "tiers:\n  pro: {max_retained_artifact_bytes: 104857599}\n",
       "tiers.pro.max_retained_artifact_bytes"},
      {"no artifacts", "tiers:\n  free: {max_retained_artifact_bytes: 0}\n",
       "tiers.free.max_retained_artifact_bytes"},
      {"output below 1 MiB", "tiers:\n  free: {max_retained_output_bytes: 1048575}\n",
       "tiers.free.max_retained_output_bytes"},
  });
}

}  // namespace
}  // namespace coderunner::config
