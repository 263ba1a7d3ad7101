#include "coderunner/common/metrics.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <functional>
#include <string_view>

namespace coderunner {
namespace {

// Buckets of a histogram created implicitly by Observe (Prometheus' defaults).
const std::vector<double>& DefaultBuckets() {
  static const std::vector<double> kBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                               0.5,   1,    2.5,   5,    10};
  return kBuckets;
}

bool IsValidName(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Labels in name order, so {a,b} and {b,a} are the same series.
MetricLabels Canonical(const MetricLabels& labels) {
  MetricLabels sorted = labels;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  return sorted;
}

// Shortest text that reads back as `v`; "+Inf", "-Inf", "NaN" as Prometheus
// spells them.
std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec != std::errc()) return "NaN";  // Cannot happen with 64 bytes.
  return std::string(buf, end);
}

// HELP text: backslash and newline are escaped.
void AppendEscapedHelp(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

// Label values: backslash, double quote and newline are escaped.
void AppendEscapedLabelValue(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

// `{a="1",b="2"}` (with `le` last if given), or nothing for no labels.
void AppendLabels(std::string& out, const MetricLabels& labels, const std::string* le = nullptr) {
  if (labels.empty() && le == nullptr) return;
  out += '{';
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) out += ',';
    first = false;
    out += name;
    out += "=\"";
    AppendEscapedLabelValue(out, value);
    out += '"';
  }
  if (le != nullptr) {
    if (!first) out += ',';
    out += "le=\"";
    out += *le;
    out += '"';
  }
  out += '}';
}

void AppendSample(std::string& out, const std::string& name, const MetricLabels& labels,
                  const std::string& value, const std::string* le = nullptr) {
  out += name;
  AppendLabels(out, labels, le);
  out += ' ';
  out += value;
  out += '\n';
}

}  // namespace

// Returns the family `name` of `type`, creating it (with empty help) if it is
// not declared yet; nullptr if the name is invalid or declared with another
// type (programming errors: assert in debug builds, ignored in release).
MetricsRegistry::Family* MetricsRegistry::FindOrCreate(const std::string& name, Type type) {
  if (!IsValidName(name)) {
    assert(false && "invalid metric name");
    return nullptr;
  }
  auto [it, inserted] = families_.try_emplace(name);
  Family& family = it->second;
  if (inserted) {
    family.type = type;
    if (type == Type::kHistogram) family.buckets = DefaultBuckets();
    return &family;
  }
  if (family.type != type) {
    assert(false && "metric used with a different type than it was declared with");
    return nullptr;
  }
  return &family;
}

void MetricsRegistry::DeclareCounter(const std::string& name, const std::string& help) {
  std::lock_guard lock(mu_);
  if (Family* f = FindOrCreate(name, Type::kCounter)) f->help = help;
}

void MetricsRegistry::DeclareGauge(const std::string& name, const std::string& help) {
  std::lock_guard lock(mu_);
  if (Family* f = FindOrCreate(name, Type::kGauge)) f->help = help;
}

void MetricsRegistry::DeclareHistogram(const std::string& name, const std::string& help,
                                       std::vector<double> buckets) {
  assert(std::adjacent_find(buckets.begin(), buckets.end(), std::greater_equal<>()) ==
             buckets.end() &&
         "buckets must be increasing");
  // +Inf is implicit; an explicit one would render twice.
  while (!buckets.empty() && std::isinf(buckets.back()) && buckets.back() > 0) buckets.pop_back();
  std::lock_guard lock(mu_);
  Family* f = FindOrCreate(name, Type::kHistogram);
  if (f == nullptr) return;
  f->help = help;
  if (f->buckets != buckets) {
    // Re-declaring with other buckets drops what was observed with the old.
    f->buckets = std::move(buckets);
    f->histograms.clear();
  }
}

void MetricsRegistry::Increment(const std::string& name, const MetricLabels& labels, double by) {
  std::lock_guard lock(mu_);
  auto it = families_.find(name);
  // Increment also works on a gauge (it goes up); otherwise it is a counter,
  // and counters only go up.
  Type type =
      (it != families_.end() && it->second.type == Type::kGauge) ? Type::kGauge : Type::kCounter;
  if (type == Type::kCounter && !(by >= 0)) {
    assert(false && "counters cannot decrease");
    return;
  }
  if (Family* f = FindOrCreate(name, type)) f->values[Canonical(labels)] += by;
}

void MetricsRegistry::Set(const std::string& name, const MetricLabels& labels, double value) {
  std::lock_guard lock(mu_);
  if (Family* f = FindOrCreate(name, Type::kGauge)) f->values[Canonical(labels)] = value;
}

void MetricsRegistry::Add(const std::string& name, const MetricLabels& labels, double delta) {
  std::lock_guard lock(mu_);
  if (Family* f = FindOrCreate(name, Type::kGauge)) f->values[Canonical(labels)] += delta;
}

void MetricsRegistry::Observe(const std::string& name, const MetricLabels& labels, double value) {
  std::lock_guard lock(mu_);
  Family* f = FindOrCreate(name, Type::kHistogram);
  if (f == nullptr) return;
  HistogramData& h = f->histograms[Canonical(labels)];
  if (h.counts.size() != f->buckets.size()) h.counts.assign(f->buckets.size(), 0);
  // The first bucket whose upper bound is >= value; none means only +Inf.
  // NaN is in no bucket but +Inf (where Prometheus' own clients put it).
  auto bucket = std::isnan(value) ? f->buckets.end()
                                  : std::lower_bound(f->buckets.begin(), f->buckets.end(), value);
  if (bucket != f->buckets.end()) ++h.counts[bucket - f->buckets.begin()];
  ++h.count;
  h.sum += value;
}

double MetricsRegistry::Value(const std::string& name, const MetricLabels& labels) const {
  std::lock_guard lock(mu_);
  auto it = families_.find(name);
  if (it == families_.end()) return 0;
  auto v = it->second.values.find(Canonical(labels));
  return v == it->second.values.end() ? 0 : v->second;
}

std::string MetricsRegistry::RenderPrometheus() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [name, family] : families_) {
    if (!family.help.empty()) {
      out += "# HELP ";
      out += name;
      out += ' ';
      AppendEscapedHelp(out, family.help);
      out += '\n';
    }
    out += "# TYPE ";
    out += name;
    switch (family.type) {
      case Type::kCounter:
        out += " counter\n";
        break;
      case Type::kGauge:
        out += " gauge\n";
        break;
      case Type::kHistogram:
        out += " histogram\n";
        break;
    }
    if (family.type != Type::kHistogram) {
      for (const auto& [labels, value] : family.values) {
        AppendSample(out, name, labels, FormatValue(value));
      }
      continue;
    }
    const std::string bucket_name = name + "_bucket";
    for (const auto& [labels, h] : family.histograms) {
      uint64_t cumulative = 0;
      for (size_t i = 0; i < family.buckets.size(); ++i) {
        cumulative += i < h.counts.size() ? h.counts[i] : 0;
        std::string le = FormatValue(family.buckets[i]);
        AppendSample(out, bucket_name, labels, std::to_string(cumulative), &le);
      }
      const std::string inf = "+Inf";
      AppendSample(out, bucket_name, labels, std::to_string(h.count), &inf);
      AppendSample(out, name + "_sum", labels, FormatValue(h.sum));
      AppendSample(out, name + "_count", labels, std::to_string(h.count));
    }
  }
  return out;
}

}  // namespace coderunner
