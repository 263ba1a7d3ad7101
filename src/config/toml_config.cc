#include "toml_config.h"

#include <toml++/toml.h>

#include <sstream>
#include <string>

#include "config_table.h"

namespace coderunner::config {
namespace {

constexpr char kTools[] = "tools";
constexpr char kCodeRunner[] = "code_runner";

// A TOML value as a YAML node.
YAML::Node Convert(const toml::node& n) {
  if (const toml::table* t = n.as_table()) {
    YAML::Node map(YAML::NodeType::Map);
    for (auto&& [key, value] : *t) map[std::string(key.str())] = Convert(value);
    return map;
  }
  if (const toml::array* a = n.as_array()) {
    YAML::Node seq(YAML::NodeType::Sequence);
    for (const toml::node& e : *a) seq.push_back(Convert(e));
    return seq;
  }
  if (const auto* s = n.as_string()) return YAML::Node(s->get());
  if (const auto* i = n.as_integer()) return YAML::Node(std::to_string(i->get()));
  if (const auto* b = n.as_boolean()) return YAML::Node(b->get() ? "true" : "false");
  if (const auto* f = n.as_floating_point()) {
    std::ostringstream out;
    out.precision(17);
    out << f->get();
    return YAML::Node(out.str());
  }
  std::ostringstream out;  // Dates and times: as TOML writes them.
  n.visit([&](const auto& v) { out << v; });
  return YAML::Node(out.str());
}

// The document's root table: [tools.code_runner] as code_runner, the rest
// as is.
StatusOr<YAML::Node> Root(const toml::table& doc) {
  YAML::Node root(YAML::NodeType::Map);
  for (auto&& [key, value] : doc) {
    std::string name(key.str());
    if (name != kTools) {
      root[name] = Convert(value);
      continue;
    }
    const toml::table* tools = value.as_table();
    if (tools == nullptr) return Bad(kTools, "expected a table");
    for (auto&& [tool, settings] : *tools) {
      std::string tool_name(tool.str());
      if (tool_name != kCodeRunner) {
        return Bad(std::string(kTools) + "." + tool_name, "unknown key (known: code_runner)");
      }
      if (static_cast<const YAML::Node&>(root)[kCodeRunner])
        return Bad("tools.code_runner", "given twice (also as [code_runner])");
      root[kCodeRunner] = Convert(settings);
    }
  }
  return root;
}

Status SyntaxError(const toml::parse_error& e) {
  return InvalidArgumentError(
      "config: TOML syntax error at line " + std::to_string(e.source().begin.line) + ", column " +
          std::to_string(e.source().begin.column) + ": " + std::string(e.description()),
      "invalid_config");
}

}  // namespace

StatusOr<YAML::Node> TomlToYaml(std::string_view toml_text) {
  toml::table doc;
#if TOML_EXCEPTIONS
  // toml++ reports syntax errors by exception here; this is its boundary.
  try {
    doc = toml::parse(toml_text);
  } catch (const toml::parse_error& e) {
    return SyntaxError(e);
  }
#else
  toml::parse_result parsed = toml::parse(toml_text);
  if (!parsed) return SyntaxError(parsed.error());
  doc = std::move(parsed).table();
#endif
  return Root(doc);
}

}  // namespace coderunner::config
