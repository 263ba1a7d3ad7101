#include "config/typescript_module.h"

#include <gtest/gtest.h>

#include <string>

#include "coderunner/common/base64.h"
#include "coderunner/config/config.h"

namespace coderunner::config {
namespace {

constexpr std::string_view kDataUrl = "data:text/javascript;base64,";

// The payload of a base64 data: URL, or "" if `url` is not one.
std::string Payload(std::string_view url) {
  if (url.substr(0, kDataUrl.size()) != kDataUrl) return "";
  auto decoded = Base64Decode(url.substr(kDataUrl.size()));
  return decoded.ok() ? *decoded : "";
}

TEST(TypeScriptModuleTest, ImportRegistersTheHookAsADataUrl) {
  const std::string registrar = Payload(TypeScriptModuleImport());
  const std::string prefix = "import { register } from \"node:module\"; register(\"";
  ASSERT_EQ(registrar.substr(0, prefix.size()), prefix) << registrar;
  const std::string suffix = "\");";
  ASSERT_GT(registrar.size(), prefix.size() + suffix.size());
  const std::string hook_url =
      registrar.substr(prefix.size(), registrar.size() - prefix.size() - suffix.size());
  EXPECT_EQ(registrar.substr(registrar.size() - suffix.size()), suffix);
  EXPECT_EQ(Payload(hook_url), TypeScriptModuleHook());
}

TEST(TypeScriptModuleTest, TheBuiltInTypescriptCommandImportsTheHook) {
  const Config c = DefaultConfig();
  const LanguageSpec* ts = c.FindLanguage("ts");
  ASSERT_NE(ts, nullptr);
  EXPECT_EQ(ts->name, "typescript");
  EXPECT_EQ(ts->file, "main.ts");
  EXPECT_EQ(ts->command,
            (std::vector<std::string>{"tsx", "--import", TypeScriptModuleImport(), "{file}"}));
  const LanguageSpec* js = c.FindLanguage("javascript");
  ASSERT_NE(js, nullptr);
  EXPECT_EQ(js->command, (std::vector<std::string>{"node", "{file}"})) << "JavaScript unchanged";
}

}  // namespace
}  // namespace coderunner::config
