// The config tables: one row per YAML key of a section (key, member, unit,
// bounds, check). A table drives the section's unknown-key check, its reads
// and its range checks; the same rows list every key for the reference-file
// test. Private to src/config.
//
// Defaults are not repeated in the rows: a key's default is its member's
// value in DefaultConfig() (the initializers in config.h, which document
// them), read through the row's member pointer.
#ifndef CODERUNNER_SRC_CONFIG_CONFIG_TABLE_H_
#define CODERUNNER_SRC_CONFIG_CONFIG_TABLE_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"

namespace coderunner::config {

// What a key's value means. Every scalar is read through ReadValue(), which
// switches on the unit: accepting "256MB" for kBytes or "30s" for
// kMillis/kSeconds is a change there only.
enum class Unit {
  kNone,     // Text, a flag, a list or a mapping.
  kCount,    // A plain count.
  kBytes,    // Bytes.
  kMillis,   // Milliseconds.
  kSeconds,  // Seconds.
  kTokens,   // Model tokens.
  kReal,     // A real number (CPUs, temperature, a score).
};

// Inclusive numeric bounds. The error text is generated ("must not be
// negative", "must be at least N", "must be between A and B") unless `why`
// replaces it; `names_section` makes the error name the section, not the key
// (for caps that share one message).
struct Bounds {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  const char* why = nullptr;
  bool names_section = false;
};
constexpr Bounds AtLeast(double lo, const char* why = nullptr) { return {lo, Bounds{}.hi, why}; }
constexpr Bounds Between(double lo, double hi, const char* why = nullptr) { return {lo, hi, why}; }
// The same bounds, reported as `why` against the whole section.
constexpr Bounds SectionCap(Bounds b, const char* why) { return {b.lo, b.hi, why, true}; }

// Checks a text value; `path` names the key in the error.
using TextCheck = Status (*)(const std::string& value, const std::string& path);

// One key of a section of type S.
template <typename S>
struct Field {
  using Member = std::variant<std::string S::*, bool S::*, int S::*, int64_t S::*, double S::*,
                              std::vector<std::string> S::*, std::map<std::string, int> S::*>;
  const char* key;
  Member member;
  Unit unit = Unit::kNone;
  Bounds bounds = {};         // Numbers, and each value of a mapping.
  TextCheck check = nullptr;  // Text.
};

// "config: <key>: <why>", InvalidArgument with reason invalid_config.
Status Bad(const std::string& key, const std::string& why);

// Rejects any key of map `node` not in `known`, naming it with its full path.
Status CheckKeys(const YAML::Node& node, const std::string& prefix,
                 const std::set<std::string>& known);

// Reads node[key] (absent: `out` untouched) as the unit says. `path` names
// the key in errors.
Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 std::string* out);
Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 bool* out);
Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 int* out);
Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 int64_t* out);
Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 double* out);
Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 std::vector<std::string>* out);
Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 std::map<std::string, int>* out);

// `value` within `b`; the error names `path` (or `section`, see Bounds).
Status CheckBounds(double value, const Bounds& b, const std::string& path,
                   const std::string& section);

// Reads every row's key of `node` into `out`.
template <typename S>
Status ReadFields(const YAML::Node& node, const std::string& prefix,
                  std::span<const Field<S>> fields, S* out) {
  for (const Field<S>& f : fields) {
    std::string path = prefix.empty() ? f.key : prefix + "." + f.key;
    CR_RETURN_IF_ERROR(std::visit(
        [&](auto m) { return ReadValue(node, f.key, f.unit, path, &(out->*m)); }, f.member));
  }
  return OkStatus();
}

// Every row's bounds or check against the values in `s`.
template <typename S>
Status CheckFields(const S& s, const std::string& prefix, std::span<const Field<S>> fields) {
  for (const Field<S>& f : fields) {
    std::string path = prefix.empty() ? f.key : prefix + "." + f.key;
    Status st = std::visit(
        [&](auto m) -> Status {
          const auto& v = s.*m;
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::string>) {
            return f.check != nullptr ? f.check(v, path) : OkStatus();
          } else if constexpr (std::is_same_v<V, std::map<std::string, int>>) {
            for (const auto& [k, n] : v) {
              CR_RETURN_IF_ERROR(CheckBounds(n, f.bounds, path + "." + k, prefix));
            }
            return OkStatus();
          } else if constexpr (std::is_arithmetic_v<V> && !std::is_same_v<V, bool>) {
            return CheckBounds(static_cast<double>(v), f.bounds, path, prefix);
          } else {
            return OkStatus();
          }
        },
        f.member);
    CR_RETURN_IF_ERROR(st);
  }
  return OkStatus();
}

// The keys of `fields` plus `extra` (keys a section reads by hand).
template <typename S>
std::set<std::string> KeysOf(std::span<const Field<S>> fields,
                             std::initializer_list<const char*> extra = {}) {
  std::set<std::string> keys(extra.begin(), extra.end());
  for (const Field<S>& f : fields) keys.insert(f.key);
  return keys;
}

// A mapping section: its keys known, read, and range-checked.
template <typename S>
Status ReadSection(const YAML::Node& node, const std::string& path,
                   std::span<const Field<S>> fields, S* out,
                   std::initializer_list<const char*> extra = {}) {
  CR_RETURN_IF_ERROR(CheckKeys(node, path, KeysOf(fields, extra)));
  CR_RETURN_IF_ERROR(ReadFields(node, path, fields, out));
  return CheckFields(*out, path, fields);
}

// One key of the whole config, for tests and documentation: its full path
// ("server.listen", "tiers.free.volumes"), its unit, and whether two configs
// hold the same value for it.
struct KeyInfo {
  std::string path;
  Unit unit = Unit::kNone;
  std::function<bool(const Config&, const Config&)> same;
};

// Rows of `fields` as KeyInfo under `prefix`; `get` finds the section in a
// Config (nullptr: absent, which equals nothing).
template <typename S, typename Get>
void DescribeFields(const std::string& prefix, std::span<const Field<S>> fields, Get get,
                    std::vector<KeyInfo>* out) {
  for (const Field<S>& f : fields) {
    auto same = [member = f.member, get](const Config& a, const Config& b) {
      const S* x = get(a);
      const S* y = get(b);
      if (x == nullptr || y == nullptr) return false;
      return std::visit([&](auto m) { return x->*m == y->*m; }, member);
    };
    out->push_back({prefix.empty() ? f.key : prefix + "." + f.key, f.unit, same});
  }
}

// Every key the tables define, with the built-in tiers and languages spelled
// out (tiers.free.*, languages.python.*), in table order.
std::vector<KeyInfo> AllKeys();

}  // namespace coderunner::config

#endif  // CODERUNNER_SRC_CONFIG_CONFIG_TABLE_H_
