// One language of GET /v1/languages: config + the image's labels.
#include "api/language_entry.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace coderunner::api {
namespace {

using nlohmann::json;

config::LanguageSpec TypeScript() {
  config::LanguageSpec l;
  l.name = "typescript";
  l.image = "coderunner/node:20";
  l.file = "main.ts";
  l.command = {"tsx", "{file}"};
  l.aliases = {"ts"};
  return l;
}

engine::ImageInfo Image(std::map<std::string, std::string> labels) {
  engine::ImageInfo info;
  info.id = "sha256:abc";
  info.labels = std::move(labels);
  return info;
}

TEST(LanguageEntryTest, VersionAndPackagesFromLabels) {
  struct Case {
    const char* name;
    std::map<std::string, std::string> labels;
    json version;
    json packages;
  };
  const std::string version = kLabelLanguageVersion;
  const std::string packages = kLabelPackages;
  const std::vector<Case> cases = {
      {"no labels (an upstream image)", {}, nullptr, nullptr},
      {"both labels",
       {{version, "20.20.2"}, {packages, R"({"esbuild":"0.28.2","tsx":"4.23.15"})"}},
       "20.20.2",
       {{"esbuild", "0.28.2"}, {"tsx", "4.23.15"}}},
      {"no packages preinstalled",
       {{version, "5.2.15"}, {packages, "{}"}},
       "5.2.15",
       json::object()},
      {"packages without version",
       {{packages, R"({"tsx":"4.23.15"})"}},
       nullptr,
       {{"tsx", "4.23.15"}}},
      {"packages not JSON", {{version, "3.11.2"}, {packages, "numpy=1.24"}}, "3.11.2", nullptr},
      {"packages an array", {{packages, R"(["numpy"])"}}, nullptr, nullptr},
      {"packages a string", {{packages, R"("numpy")"}}, nullptr, nullptr},
      {"a version not a string", {{packages, R"({"numpy":1.24})"}}, nullptr, nullptr},
      {"a version nested", {{packages, R"({"numpy":{"v":"1"}})"}}, nullptr, nullptr},
      {"packages too large",
       {{packages,
         R"({"x":")" + std::string(static_cast<size_t>(kMaxPackagesLabelBytes), 'a') + R"("})"}},
       nullptr,
       nullptr},
      {"other labels ignored", {{"org.coderunner.rootfs-sha256", "00"}}, nullptr, nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    json e = LanguageEntry(TypeScript(), Image(c.labels), /*is_default=*/false);
    EXPECT_EQ(e["version"], c.version);
    EXPECT_EQ(e["packages"], c.packages);
    EXPECT_EQ(e["image_digest"], "sha256:abc");
  }
}

TEST(LanguageEntryTest, AnswerShape) {
  struct Case {
    const char* name;
    StatusOr<engine::ImageInfo> image;
    bool is_default;
    json want;
  };
  const std::vector<Case> cases = {
      {"image present",
       Image({{kLabelLanguageVersion, "20.20.2"}, {kLabelPackages, R"({"tsx":"4.23.15"})"}}),
       true,
       {{"name", "typescript"},
        {"aliases", json::array({"ts"})},
        {"image", "coderunner/node:20"},
        {"image_digest", "sha256:abc"},
        {"file", "main.ts"},
        {"default", true},
        {"version", "20.20.2"},
        {"packages", {{"tsx", "4.23.15"}}},
        {"compile", nullptr}}},
      {"image missing",
       NotFoundError("no such image"),
       false,
       {{"name", "typescript"},
        {"aliases", json::array({"ts"})},
        {"image", "coderunner/node:20"},
        {"image_digest", nullptr},
        {"file", "main.ts"},
        {"default", false},
        {"version", nullptr},
        {"packages", nullptr},
        {"compile", nullptr}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(LanguageEntry(TypeScript(), c.image, c.is_default), c.want);
  }
}

TEST(LanguageEntryTest, ACompiledLanguageShowsItsCompileCommandAndLimits) {
  config::LanguageSpec cpp;
  cpp.name = "cpp";
  cpp.compile = {"g++", "-O2", "-o", "/output/main", "{file}"};
  cpp.compile_timeout_ms = 7000;
  json e = LanguageEntry(cpp, Image({{kLabelLanguageVersion, "12.2.0"}}), false);
  EXPECT_EQ(e["version"], "12.2.0");
  EXPECT_EQ(e["compile"], (json{{"command", cpp.compile},
                                {"timeout_ms", 7000},
                                {"memory_bytes", cpp.compile_memory_bytes},
                                {"output_bytes", cpp.compile_output_bytes}}));
}

TEST(LanguageEntryTest, NoAliasesIsAnEmptyArray) {
  config::LanguageSpec bash;
  bash.name = "bash";
  json e = LanguageEntry(bash, Image({}), false);
  EXPECT_EQ(e["aliases"], json::array());
}

}  // namespace
}  // namespace coderunner::api
