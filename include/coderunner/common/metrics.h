// Metrics: counters, gauges and histograms rendered in the Prometheus text
// exposition format (version 0.0.4).
#ifndef CODERUNNER_COMMON_METRICS_H_
#define CODERUNNER_COMMON_METRICS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace coderunner {

// Label set, e.g. {{"status","succeeded"},{"language","python"}}. Values are
// escaped on output (backslash, double quote, newline).
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// A registry of named metric families. Names must match
// [a-zA-Z_:][a-zA-Z0-9_:]*. Using a name with a different type than it was
// declared with is a programming error (ignored in release builds).
// Thread-safe; every call takes one mutex briefly.
class MetricsRegistry {
 public:
  // Declares a family so it renders with HELP/TYPE even before any sample.
  void DeclareCounter(const std::string& name, const std::string& help);
  void DeclareGauge(const std::string& name, const std::string& help);
  // `buckets`: upper bounds in increasing order (+Inf is implicit).
  void DeclareHistogram(const std::string& name, const std::string& help,
                        std::vector<double> buckets);

  void Increment(const std::string& name, const MetricLabels& labels = {}, double by = 1);
  void Set(const std::string& name, const MetricLabels& labels, double value);
  void Add(const std::string& name, const MetricLabels& labels, double delta);  // Gauges.
  void Observe(const std::string& name, const MetricLabels& labels, double value);

  // Current value of a counter or gauge sample (0 if absent). For tests.
  double Value(const std::string& name, const MetricLabels& labels = {}) const;

  // Every family, sorted by name, in the text format.
  std::string RenderPrometheus() const;

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  struct HistogramData {
    std::vector<uint64_t> counts;  // One per bucket, not cumulative.
    uint64_t count = 0;
    double sum = 0;
  };
  struct Family {
    Type type;
    std::string help;
    std::vector<double> buckets;
    std::map<MetricLabels, double> values;
    std::map<MetricLabels, HistogramData> histograms;
  };
  // The family `name` of `type`, created if undeclared; nullptr on misuse.
  // Requires mu_.
  Family* FindOrCreate(const std::string& name, Type type);

  mutable std::mutex mu_;
  std::map<std::string, Family> families_;
};

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_METRICS_H_
