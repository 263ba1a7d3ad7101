#include "coderunner/common/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace coderunner {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsRegistryTest, RendersCounterGaugeAndHistogramInTextFormat) {
  MetricsRegistry r;
  r.DeclareCounter("coderunner_jobs_total", "Jobs finished, by status.");
  r.DeclareGauge("coderunner_queue_depth", "Jobs waiting.");
  r.DeclareHistogram("coderunner_job_duration_seconds", "Wall time.", {0.1, 1, 10});
  r.Increment("coderunner_jobs_total", {{"language", "python"}, {"status", "succeeded"}});
  r.Increment("coderunner_jobs_total", {{"language", "python"}, {"status", "failed"}}, 2);
  r.Set("coderunner_queue_depth", {}, 3);
  for (double v : {0.0625, 0.5, 0.5, 20.0}) r.Observe("coderunner_job_duration_seconds", {}, v);

  EXPECT_EQ(r.RenderPrometheus(),
            "# HELP coderunner_job_duration_seconds Wall time.\n"
            "# TYPE coderunner_job_duration_seconds histogram\n"
            "coderunner_job_duration_seconds_bucket{le=\"0.1\"} 1\n"
            "coderunner_job_duration_seconds_bucket{le=\"1\"} 3\n"
            "coderunner_job_duration_seconds_bucket{le=\"10\"} 3\n"
            "coderunner_job_duration_seconds_bucket{le=\"+Inf\"} 4\n"
            "coderunner_job_duration_seconds_sum 21.0625\n"
            "coderunner_job_duration_seconds_count 4\n"
            "# HELP coderunner_jobs_total Jobs finished, by status.\n"
            "# TYPE coderunner_jobs_total counter\n"
            "coderunner_jobs_total{language=\"python\",status=\"failed\"} 2\n"
            "coderunner_jobs_total{language=\"python\",status=\"succeeded\"} 1\n"
            "# HELP coderunner_queue_depth Jobs waiting.\n"
            "# TYPE coderunner_queue_depth gauge\n"
            "coderunner_queue_depth 3\n");
}

TEST(MetricsRegistryTest, SortsFamiliesByNameRegardlessOfDeclarationOrder) {
  MetricsRegistry r;
  r.DeclareGauge("zeta", "z");
  r.DeclareCounter("alpha_total", "a");
  r.DeclareGauge("mid", "m");
  EXPECT_EQ(r.RenderPrometheus(),
            "# HELP alpha_total a\n# TYPE alpha_total counter\n"
            "# HELP mid m\n# TYPE mid gauge\n"
            "# HELP zeta z\n# TYPE zeta gauge\n");
}

TEST(MetricsRegistryTest, HistogramBucketsAreCumulativePerLabelSet) {
  MetricsRegistry r;
  r.DeclareHistogram("latency_seconds", "Latency.", {1, 2, 4});
  // Bounds are inclusive: 1 is in le="1".
  for (double v : {0.5, 1.0, 1.5, 3.0, 3.5, 100.0}) r.Observe("latency_seconds", {{"op", "a"}}, v);
  r.Observe("latency_seconds", {{"op", "b"}}, 4);

  EXPECT_EQ(r.RenderPrometheus(),
            "# HELP latency_seconds Latency.\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{op=\"a\",le=\"1\"} 2\n"
            "latency_seconds_bucket{op=\"a\",le=\"2\"} 3\n"
            "latency_seconds_bucket{op=\"a\",le=\"4\"} 5\n"
            "latency_seconds_bucket{op=\"a\",le=\"+Inf\"} 6\n"
            "latency_seconds_sum{op=\"a\"} 109.5\n"
            "latency_seconds_count{op=\"a\"} 6\n"
            "latency_seconds_bucket{op=\"b\",le=\"1\"} 0\n"
            "latency_seconds_bucket{op=\"b\",le=\"2\"} 0\n"
            "latency_seconds_bucket{op=\"b\",le=\"4\"} 1\n"
            "latency_seconds_bucket{op=\"b\",le=\"+Inf\"} 1\n"
            "latency_seconds_sum{op=\"b\"} 4\n"
            "latency_seconds_count{op=\"b\"} 1\n");
}

TEST(MetricsRegistryTest, EscapesLabelValuesAndHelpText) {
  MetricsRegistry r;
  r.DeclareCounter("errors_total", "Errors \\ by \"message\"\nsecond line.");
  r.Increment("errors_total", {{"message", "a\\b \"quoted\"\nnext"}});
  EXPECT_EQ(r.RenderPrometheus(),
            "# HELP errors_total Errors \\\\ by \"message\"\\nsecond line.\n"
            "# TYPE errors_total counter\n"
            "errors_total{message=\"a\\\\b \\\"quoted\\\"\\nnext\"} 1\n");
}

TEST(MetricsRegistryTest, CreatesUndeclaredNamesImplicitlyWithoutHelp) {
  MetricsRegistry r;
  r.Increment("requests_total");
  r.Set("temperature", {{"room", "1"}}, -2.5);
  r.Observe("size_bytes", {}, 0.003);
  std::string text = r.RenderPrometheus();
  EXPECT_THAT(text, Not(HasSubstr("# HELP")));
  EXPECT_THAT(text, HasSubstr("# TYPE requests_total counter\nrequests_total 1\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE temperature gauge\ntemperature{room=\"1\"} -2.5\n"));
  // Implicit histograms get Prometheus' default buckets, .005 to 10.
  EXPECT_THAT(text, HasSubstr("# TYPE size_bytes histogram\n"
                              "size_bytes_bucket{le=\"0.005\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("size_bytes_bucket{le=\"10\"} 1\n"
                              "size_bytes_bucket{le=\"+Inf\"} 1\n"
                              "size_bytes_sum 0.003\n"
                              "size_bytes_count 1\n"));
}

TEST(MetricsRegistryTest, DeclaredFamilyWithoutSamplesRendersHelpAndTypeOnly) {
  MetricsRegistry r;
  r.DeclareHistogram("empty_seconds", "Nothing yet.", {1});
  EXPECT_EQ(r.RenderPrometheus(),
            "# HELP empty_seconds Nothing yet.\n# TYPE empty_seconds histogram\n");
}

TEST(MetricsRegistryTest, ValueReturnsCounterAndGaugeSamples) {
  MetricsRegistry r;
  r.Increment("jobs_total", {{"status", "ok"}});
  r.Increment("jobs_total", {{"status", "ok"}}, 2.5);
  r.Set("running", {}, 5);
  r.Add("running", {}, -2);
  r.Add("running", {}, 0.5);
  EXPECT_DOUBLE_EQ(r.Value("jobs_total", {{"status", "ok"}}), 3.5);
  EXPECT_DOUBLE_EQ(r.Value("running"), 3.5);
  EXPECT_EQ(r.Value("jobs_total", {{"status", "failed"}}), 0);
  EXPECT_EQ(r.Value("jobs_total"), 0);
  EXPECT_EQ(r.Value("no_such_metric"), 0);
}

TEST(MetricsRegistryTest, LabelOrderDoesNotMakeANewSeries) {
  MetricsRegistry r;
  r.Increment("jobs_total", {{"b", "2"}, {"a", "1"}});
  r.Increment("jobs_total", {{"a", "1"}, {"b", "2"}});
  EXPECT_EQ(r.Value("jobs_total", {{"b", "2"}, {"a", "1"}}), 2);
  EXPECT_EQ(r.RenderPrometheus(), "# TYPE jobs_total counter\njobs_total{a=\"1\",b=\"2\"} 2\n");
}

TEST(MetricsRegistryTest, IncrementOnAGaugeAddsToIt) {
  MetricsRegistry r;
  r.DeclareGauge("in_flight", "In flight.");
  r.Increment("in_flight");
  r.Increment("in_flight");
  r.Add("in_flight", {}, -1);
  EXPECT_EQ(r.Value("in_flight"), 1);
  EXPECT_THAT(r.RenderPrometheus(), HasSubstr("# TYPE in_flight gauge\nin_flight 1\n"));
}

TEST(MetricsRegistryTest, FormatsSpecialAndFractionalValues) {
  MetricsRegistry r;
  r.Set("g", {{"k", "inf"}}, std::numeric_limits<double>::infinity());
  r.Set("g", {{"k", "nan"}}, std::nan(""));
  r.Set("g", {{"k", "neg_inf"}}, -std::numeric_limits<double>::infinity());
  r.Set("g", {{"k", "small"}}, 0.1);
  r.Set("g", {{"k", "big"}}, 123456789012.0);
  EXPECT_EQ(r.RenderPrometheus(),
            "# TYPE g gauge\n"
            "g{k=\"big\"} 123456789012\n"
            "g{k=\"inf\"} +Inf\n"
            "g{k=\"nan\"} NaN\n"
            "g{k=\"neg_inf\"} -Inf\n"
            "g{k=\"small\"} 0.1\n");
}

TEST(MetricsRegistryTest, ConcurrentIncrementsFromEightThreadsSumCorrectly) {
  MetricsRegistry r;
  r.DeclareCounter("hits_total", "Hits.");
  constexpr int kThreads = 8;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&r, t] {
      for (int i = 0; i < kPerThread; ++i) {
        r.Increment("hits_total");
        r.Increment("hits_total", {{"thread", std::to_string(t % 2)}});
        r.Observe("work_seconds", {}, 1);
        if (i % 1000 == 0) (void)r.RenderPrometheus();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(r.Value("hits_total"), kThreads * kPerThread);
  EXPECT_EQ(r.Value("hits_total", {{"thread", "0"}}), kThreads * kPerThread / 2);
  EXPECT_EQ(r.Value("hits_total", {{"thread", "1"}}), kThreads * kPerThread / 2);
  EXPECT_THAT(r.RenderPrometheus(),
              HasSubstr("work_seconds_count " + std::to_string(kThreads * kPerThread) + "\n"));
}

TEST(MetricsRegistryDeathTest, UsingANameWithAnotherTypeIsAProgrammingError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  MetricsRegistry r;
  r.DeclareCounter("jobs_total", "Jobs.");
  // Debug builds assert; release builds ignore the call.
  EXPECT_DEBUG_DEATH(r.Set("jobs_total", {}, 1), "different type");
  EXPECT_DEBUG_DEATH(r.Observe("jobs_total", {}, 1), "different type");
  EXPECT_DEBUG_DEATH(r.Increment("bad name"), "invalid metric name");
}

}  // namespace
}  // namespace coderunner
