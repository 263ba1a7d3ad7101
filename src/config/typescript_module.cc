#include "typescript_module.h"

#include "coderunner/common/base64.h"

namespace coderunner::config {
namespace {

constexpr std::string_view kDataUrl = "data:text/javascript;base64,";

constexpr std::string_view kHook =
    "export async function resolve(s, c, next) { const r = await next(s, c); "
    "return r.url.startsWith(\"file:\") && r.url.endsWith(\".ts\") && "
    "!r.url.includes(\"/node_modules/\") ? { ...r, format: \"module\" } : r; }";

}  // namespace

std::string_view TypeScriptModuleHook() { return kHook; }

std::string TypeScriptModuleImport() {
  const std::string hook_url = std::string(kDataUrl) + Base64Encode(kHook);
  const std::string registrar =
      "import { register } from \"node:module\"; register(\"" + hook_url + "\");";
  return std::string(kDataUrl) + Base64Encode(registrar);
}

}  // namespace coderunner::config
