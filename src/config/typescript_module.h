// The node --import argument that makes tsx run TypeScript as ES modules.
#ifndef CODERUNNER_SRC_CONFIG_TYPESCRIPT_MODULE_H_
#define CODERUNNER_SRC_CONFIG_TYPESCRIPT_MODULE_H_

#include <string>
#include <string_view>

namespace coderunner::config {

// The module resolve hook, as JavaScript: every .ts file outside
// node_modules loads as an ES module, as a .mts file or a package with
// "type": "module" would. tsx alone treats /workspace/main.ts as CommonJS
// (there is no package.json), where top-level await fails to compile.
std::string_view TypeScriptModuleHook();

// A data: URL for `node --import` (tsx passes it to node) that registers
// TypeScriptModuleHook() with node:module's register(). Base64 at both
// levels, since tsx's module lexer misreads quotes left in a plain data URL.
// The built-in typescript command is {"tsx", "--import", this, "{file}"};
// config/coderunner.yaml spells the same string. Pure; thread-safe.
std::string TypeScriptModuleImport();

}  // namespace coderunner::config

#endif  // CODERUNNER_SRC_CONFIG_TYPESCRIPT_MODULE_H_
