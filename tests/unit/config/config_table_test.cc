// The config tables against the reference file config/coderunner.yaml: it
// documents every key the tables define, each with the code's default
// (except the listed deliberate deviations), and the unit column agrees
// with each key's name.
#include "config/config_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "coderunner/config/config.h"

namespace coderunner::config {
namespace {

std::string ReferencePath() {
  return std::string(CODERUNNER_TESTDATA) + "/../../config/coderunner.yaml";
}

// The node at a dotted path ("tiers.free.volumes"), or an undefined node.
YAML::Node At(YAML::Node node, const std::string& path) {
  size_t start = 0;
  while (node && node.IsMap()) {
    size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
    node.reset(node[part]);  // Not operator=, which would overwrite the node's value.
    if (dot == std::string::npos) return node;
    start = dot + 1;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

// Keys the reference file shows differently on purpose.
struct Deviation {
  const char* why;
  const char* shown_as = nullptr;  // Another key documents it; nullptr: shown under its path.
  bool other_value = false;        // The file shows a value other than the default.
};
const std::map<std::string, Deviation>& Deviations() {
  static const std::map<std::string, Deviation> kDeviations = {
      // The quick-start file runs without keys; the code's default is api_keys.
      {"auth.mode", {"quick start: none, the default is api_keys", nullptr, true}},
      // Setting both is allowed only with equal values; the file shows the
      // top-level form, as its comment says ("set one or the other").
      {"limits.default.output_bytes", {"shown as top-level output_bytes", "output_bytes"}},
  };
  return kDeviations;
}

TEST(ConfigTableTest, ReferenceFileDocumentsEveryKeyWithItsDefault) {
  ASSERT_TRUE(std::filesystem::exists(ReferencePath())) << ReferencePath();
  YAML::Node file = YAML::LoadFile(ReferencePath());
  auto reference = LoadConfigFile(ReferencePath());
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  const Config defaults = DefaultConfig();
  std::set<std::string> used;
  for (const KeyInfo& key : AllKeys()) {
    SCOPED_TRACE(key.path);
    auto dev = Deviations().find(key.path);
    std::string shown = key.path;
    bool other_value = false;
    if (dev != Deviations().end()) {
      used.insert(key.path);
      if (dev->second.shown_as != nullptr) shown = dev->second.shown_as;
      other_value = dev->second.other_value;
    }
    EXPECT_TRUE(At(file, shown).IsDefined()) << "config/coderunner.yaml does not show " << shown;
    if (other_value) {
      EXPECT_FALSE(key.same(*reference, defaults))
          << "shows the default now: drop the deviation (" << dev->second.why << ")";
    } else {
      EXPECT_TRUE(key.same(*reference, defaults))
          << "config/coderunner.yaml shows a value other than the code's default";
    }
  }
  for (const auto& [path, dev] : Deviations()) {
    EXPECT_TRUE(used.count(path)) << "deviation for a key no table has: " << path;
  }
}

TEST(ConfigTableTest, EveryKeyPathIsUnique) {
  std::set<std::string> seen;
  for (const KeyInfo& key : AllKeys()) {
    EXPECT_TRUE(seen.insert(key.path).second) << "twice: " << key.path;
  }
  EXPECT_GT(seen.size(), 80u);
}

// A key's name says its unit; the unit column decides how a value is read
// (e.g. "256MB" for bytes, later), so every bytes or time key must carry it.
TEST(ConfigTableTest, UnitColumnMatchesKeyNames) {
  struct Case {
    const char* suffix;
    Unit unit;
  };
  const Case cases[] = {
      {"_bytes", Unit::kBytes},      {"_ms", Unit::kMillis},          {"_s", Unit::kSeconds},
      {"max_tokens", Unit::kTokens}, {"token_budget", Unit::kTokens},
  };
  auto ends_with = [](const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  std::map<Unit, int> seen;
  for (const KeyInfo& key : AllKeys()) {
    SCOPED_TRACE(key.path);
    for (const Case& c : cases) {
      if (ends_with(key.path, c.suffix)) {
        EXPECT_EQ(key.unit, c.unit) << "key ends in " << c.suffix;
        ++seen[c.unit];
      }
    }
    if (key.unit == Unit::kBytes) {
      EXPECT_TRUE(ends_with(key.path, "_bytes"));
    }
    if (key.unit == Unit::kMillis) {
      EXPECT_TRUE(ends_with(key.path, "_ms"));
    }
    if (key.unit == Unit::kSeconds) {
      EXPECT_TRUE(ends_with(key.path, "_s"));
    }
  }
  for (const Case& c : cases) EXPECT_GT(seen[c.unit], 0) << c.suffix;
}

}  // namespace
}  // namespace coderunner::config
