#include "config_table.h"

#include <cmath>
#include <cstdio>

namespace coderunner::config {
namespace {

// A YAML scalar read as T by yaml-cpp.
template <typename T>
Status ReadPlain(const YAML::Node& v, const std::string& path, T* out) {
  if (!v.IsScalar()) return Bad(path, "expected a scalar");
  try {
    *out = v.as<T>();
  } catch (const YAML::Exception&) {
    return Bad(path, "cannot read '" + v.Scalar() + "' as the expected type");
  }
  return OkStatus();
}

// The one place a scalar becomes a number. Today every unit is a plain YAML
// number; human-readable sizes ("256MB", "1GiB") for kBytes and durations
// ("30s", "2m") for kMillis and kSeconds would be parsed here.
template <typename T>
Status ReadNumber(const YAML::Node& v, Unit unit, const std::string& path, T* out) {
  switch (unit) {
    case Unit::kBytes:
    case Unit::kMillis:
    case Unit::kSeconds:
    case Unit::kNone:
    case Unit::kCount:
    case Unit::kTokens:
    case Unit::kReal:
      return ReadPlain(v, path, out);
  }
  return ReadPlain(v, path, out);
}

// A bound as the error shows it: whole numbers without a fraction.
std::string Show(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e18) return std::to_string(static_cast<int64_t>(x));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

Status Bad(const std::string& key, const std::string& why) {
  return InvalidArgumentError("config: " + key + ": " + why, "invalid_config");
}

Status CheckKeys(const YAML::Node& node, const std::string& prefix,
                 const std::set<std::string>& known) {
  if (!node.IsMap()) return Bad(prefix.empty() ? "(top level)" : prefix, "expected a mapping");
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>();
    if (known.count(key) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return Bad(prefix.empty() ? key : prefix + "." + key, "unknown key (known: " + list + ")");
    }
  }
  return OkStatus();
}

Status ReadValue(const YAML::Node& node, const std::string& key, Unit /*unit*/,
                 const std::string& path, std::string* out) {
  YAML::Node v = node[key];
  return v ? ReadPlain(v, path, out) : OkStatus();
}

Status ReadValue(const YAML::Node& node, const std::string& key, Unit /*unit*/,
                 const std::string& path, bool* out) {
  YAML::Node v = node[key];
  return v ? ReadPlain(v, path, out) : OkStatus();
}

Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 int* out) {
  YAML::Node v = node[key];
  return v ? ReadNumber(v, unit, path, out) : OkStatus();
}

Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 int64_t* out) {
  YAML::Node v = node[key];
  return v ? ReadNumber(v, unit, path, out) : OkStatus();
}

Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 double* out) {
  YAML::Node v = node[key];
  return v ? ReadNumber(v, unit, path, out) : OkStatus();
}

Status ReadValue(const YAML::Node& node, const std::string& key, Unit /*unit*/,
                 const std::string& path, std::vector<std::string>* out) {
  YAML::Node v = node[key];
  if (!v) return OkStatus();
  if (!v.IsSequence()) return Bad(path, "expected a list of strings");
  out->clear();
  for (const auto& part : v) {
    if (!part.IsScalar()) return Bad(path, "expected a list of strings");
    out->push_back(part.as<std::string>());
  }
  return OkStatus();
}

Status ReadValue(const YAML::Node& node, const std::string& key, Unit unit, const std::string& path,
                 std::map<std::string, int>* out) {
  YAML::Node v = node[key];
  if (!v) return OkStatus();
  if (!v.IsMap()) return Bad(path, "expected a mapping of language to count");
  for (const auto& kv : v) {
    std::string name = kv.first.as<std::string>();
    int n = 0;
    CR_RETURN_IF_ERROR(ReadNumber(kv.second, unit, path + "." + name, &n));
    (*out)[name] = n;
  }
  return OkStatus();
}

Status CheckBounds(double value, const Bounds& b, const std::string& path,
                   const std::string& section) {
  if (value >= b.lo && value <= b.hi) return OkStatus();
  const std::string& where = b.names_section ? section : path;
  if (b.why != nullptr) return Bad(where, b.why);
  if (std::isinf(b.hi)) {
    return Bad(where, b.lo == 0 ? "must not be negative" : "must be at least " + Show(b.lo));
  }
  return Bad(where, "must be between " + Show(b.lo) + " and " + Show(b.hi));
}

}  // namespace coderunner::config
