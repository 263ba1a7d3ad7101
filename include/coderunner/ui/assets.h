// The web playground's files (web/), bundled by web/build.sh at build time
// and compiled into the binary, so the page needs nothing at run time: no
// CDN, no registry, no files beside the binary.
#ifndef CODERUNNER_UI_ASSETS_H_
#define CODERUNNER_UI_ASSETS_H_

#include <span>
#include <string_view>

namespace coderunner::ui {

// One compiled-in file. All views point into static storage (valid for the
// process's life).
struct Asset {
  std::string_view name;          // "index.html", "app.js", "app.css".
  std::string_view content_type;  // With charset for text types.
  std::string_view body;          // The bytes as built.
  std::string_view etag;          // Quoted strong ETag: the body's SHA-256 (hex).
};

// Every compiled-in file, in name order. Empty when built with
// -DCODERUNNER_UI=OFF. Thread-safe (immutable).
std::span<const Asset> Assets();

// The file called `name` (no directories), or nullptr.
const Asset* FindAsset(std::string_view name);

// index.html holds this placeholder where the per-response CSP nonce goes
// (the <meta name="csp-nonce"> the page reads for its editor's styles).
inline constexpr std::string_view kNoncePlaceholder = "__CSP_NONCE__";

}  // namespace coderunner::ui

#endif  // CODERUNNER_UI_ASSETS_H_
