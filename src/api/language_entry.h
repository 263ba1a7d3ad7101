// LanguageEntry: one language of the GET /v1/languages answer, from its
// config and what the engine says about its image.
#ifndef CODERUNNER_API_LANGUAGE_ENTRY_H_
#define CODERUNNER_API_LANGUAGE_ENTRY_H_

#include <cstdint>
#include <nlohmann/json.hpp>

#include "coderunner/common/status.h"
#include "coderunner/config/language_spec.h"
#include "coderunner/engine/images.h"

namespace coderunner::api {

// Image labels images/build.sh sets (an operator's own image may set them
// too): the interpreter's version ("3.11.2") and the preinstalled packages
// as a JSON object of name -> version ({"numpy":"1.24.2"}).
inline constexpr const char kLabelLanguageVersion[] = "org.coderunner.language-version";
inline constexpr const char kLabelPackages[] = "org.coderunner.packages";

// Longest org.coderunner.packages label read, in bytes; a longer one is
// treated as malformed (null).
inline constexpr int64_t kMaxPackagesLabelBytes = 64 * 1024;

// {"name", "aliases", "image", "image_digest", "file", "default", "version",
// "packages"} for `lang`. `image` is the inspect answer for lang.image, or
// its error: then image_digest, version and packages are null.
// version: the kLabelLanguageVersion label, null when absent.
// packages: the kLabelPackages label as an object of string versions; null
// when absent, and also when it is not such an object (a malformed label is
// never an error). Pure; thread-safe.
nlohmann::json LanguageEntry(const config::LanguageSpec& lang,
                             const StatusOr<engine::ImageInfo>& image, bool is_default);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_LANGUAGE_ENTRY_H_
