#include "config_table.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "human_units.h"

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

// A bytes or time value that is no plain integer: "256MB", "30s".
template <typename T>
Status ReadHuman(const YAML::Node& v, Unit unit, const std::string& path, T* out) {
  StatusOr<int64_t> n = unit == Unit::kBytes    ? ParseSize(v.Scalar())
                        : unit == Unit::kMillis ? ParseDurationMs(v.Scalar(), 1)
                                                : ParseDurationMs(v.Scalar(), 1000);
  if (!n.ok()) return Bad(path, n.status().message());
  int64_t value = *n;
  if (unit == Unit::kSeconds) {
    if (value % 1000 != 0)
      return Bad(path, "'" + v.Scalar() + "' is not a whole number of seconds");
    value /= 1000;
  }
  if (value > std::numeric_limits<T>::max()) return Bad(path, "'" + v.Scalar() + "' is too large");
  *out = static_cast<T>(value);
  return OkStatus();
}

// The one place a scalar becomes a number. A plain YAML number is read as
// is (its bounds are the table's); a bytes key also takes a size ("256MB",
// "1GiB") and a time key a duration ("500ms", "30s", "2m"): human_units.h.
template <typename T>
Status ReadNumber(const YAML::Node& v, Unit unit, const std::string& path, T* out) {
  bool human = unit == Unit::kBytes || unit == Unit::kMillis || unit == Unit::kSeconds;
  if constexpr (std::is_integral_v<T>) {
    if (human && v.IsScalar()) {
      T plain{};
      if (YAML::convert<T>::decode(v, plain)) {
        *out = plain;
        return OkStatus();
      }
      return ReadHuman(v, unit, path, out);
    }
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
