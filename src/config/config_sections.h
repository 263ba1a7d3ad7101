// The config tables, one per section (config_sections.cc), and the reader of
// the whole file that walks them (config_root.cc). Private to src/config.
#ifndef CODERUNNER_SRC_CONFIG_CONFIG_SECTIONS_H_
#define CODERUNNER_SRC_CONFIG_CONFIG_SECTIONS_H_

#include <yaml-cpp/yaml.h>

#include <span>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "config_table.h"

namespace coderunner::config {

// The rows of each section. Static data; thread-safe.
std::span<const Field<Config>> RootFields();  // workspace_dir, instance, data_dir.
std::span<const Field<ServerConfig>> ServerFields();
std::span<const Field<EngineConfig>> EngineFields();
std::span<const Field<SandboxConfig>> SandboxFields();
std::span<const Field<FilesConfig>> FilesFields();
std::span<const Field<ArtifactsConfig>> ArtifactsFields();
std::span<const Field<VolumesConfig>> VolumesFields();
std::span<const Field<PackagesConfig>> PackagesFields();
std::span<const Field<EgressConfig>> EgressFields();
std::span<const Field<PoolOptions>> PoolFields();
std::span<const Field<StoreConfig>> StoreFields();
std::span<const Field<NodeConfig>> NodeFields();
std::span<const Field<JobsConfig>> JobsFields();
std::span<const Field<WebhooksConfig>> WebhooksFields();
std::span<const Field<LlmConfig>> LlmFields();
std::span<const Field<UiConfig>> UiFields();
std::span<const Field<McpConfig>> McpFields();
std::span<const Field<E2bConfig>> E2bFields();
std::span<const Field<IntentsConfig>> IntentsFields();
std::span<const Field<Config>> LogFields();  // log.level, log.format.
std::span<const Field<Limits>> LimitsFields();
std::span<const Field<TierConfig>> TierFields();
std::span<const Field<LanguageSpec>> LanguageFields();
std::span<const Field<AuthConfig>> AuthFields();
std::span<const Field<ApiKeyConfig>> ApiKeyFields();

// Reads the top-level mapping `root` over `c` (DefaultConfig()), section by
// section, each key read and range-checked by its table; unknown keys are
// errors. Cross-section checks are the caller's (CheckAcross).
Status ReadRoot(const YAML::Node& root, Config* c);

}  // namespace coderunner::config

#endif  // CODERUNNER_SRC_CONFIG_CONFIG_SECTIONS_H_
