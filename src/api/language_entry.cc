#include "language_entry.h"

#include <string>

#include "coderunner/common/bounded_json.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// The label `name`, or null when the image lacks it.
json LabelOrNull(const engine::ImageInfo& image, const char* name) {
  auto it = image.labels.find(name);
  return it == image.labels.end() ? json(nullptr) : json(it->second);
}

// The packages label as {name: version}, or null when absent or malformed.
json PackagesOrNull(const engine::ImageInfo& image) {
  auto it = image.labels.find(kLabelPackages);
  if (it == image.labels.end()) return nullptr;
  json packages = ParseBoundedJsonOrDiscarded(
      it->second, JsonBounds{/*max_depth=*/1, /*max_bytes=*/kMaxPackagesLabelBytes});
  if (!packages.is_object()) return nullptr;
  for (const auto& [name, version] : packages.items()) {
    if (!version.is_string()) return nullptr;
  }
  return packages;
}

}  // namespace

json LanguageEntry(const config::LanguageSpec& lang, const StatusOr<engine::ImageInfo>& image,
                   bool is_default) {
  json entry = {{"name", lang.name},       {"aliases", lang.aliases}, {"image", lang.image},
                {"image_digest", nullptr}, {"file", lang.file},       {"default", is_default},
                {"version", nullptr},      {"packages", nullptr}};
  // A compiled language's version is its compiler's (the image's label).
  entry["compile"] = lang.compile.empty() ? json(nullptr)
                                          : json{{"command", lang.compile},
                                                 {"timeout_ms", lang.compile_timeout_ms},
                                                 {"memory_bytes", lang.compile_memory_bytes},
                                                 {"output_bytes", lang.compile_output_bytes}};
  if (!image.ok()) return entry;
  entry["image_digest"] = image->id;
  entry["version"] = LabelOrNull(*image, kLabelLanguageVersion);
  entry["packages"] = PackagesOrNull(*image);
  return entry;
}

}  // namespace coderunner::api
