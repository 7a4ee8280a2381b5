#include "cvmfs/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace cvmfs {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos;
       pos = text.find(what, pos + 1))
    ++n;
  return n;
}

TEST(PrometheusTextTest, EmptyPageIsEmpty) {
  EXPECT_EQ(PrometheusText().Render(), "");
}

TEST(PrometheusTextTest, WritesHelpTypeAndSample) {
  PrometheusText page;
  page.Add("cvmfs_rx_total", MetricType::kCounter, "Bytes downloaded.",
           {{"repo", "a.example.org"}}, uint64_t{42});
  EXPECT_EQ(page.Render(),
            "# HELP cvmfs_rx_total Bytes downloaded.\n"
            "# TYPE cvmfs_rx_total counter\n"
            "cvmfs_rx_total{repo=\"a.example.org\"} 42\n");
}

TEST(PrometheusTextTest, HelpAndTypeOncePerFamilyEvenWhenInterleaved) {
  PrometheusText page;
  page.Add("a", MetricType::kGauge, "A.", {{"x", "1"}}, int64_t{-1});
  page.Add("b", MetricType::kCounter, "B.", {}, uint64_t{2});
  page.Add("a", MetricType::kCounter, "ignored", {{"x", "2"}}, int64_t{3});
  const std::string out = page.Render();
  EXPECT_EQ(Count(out, "# HELP a "), 1u);
  EXPECT_EQ(Count(out, "# TYPE a "), 1u);
  EXPECT_EQ(out,
            "# HELP a A.\n# TYPE a gauge\na{x=\"1\"} -1\na{x=\"2\"} 3\n"
            "# HELP b B.\n# TYPE b counter\nb 2\n");
}

TEST(PrometheusTextTest, EscapesLabelValues) {
  EXPECT_EQ(PrometheusText::EscapeLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  PrometheusText page;
  page.Add("m", MetricType::kGauge, "h", {{"url", "http://x/\"q\"\\\n"}},
           uint64_t{1});
  EXPECT_NE(page.Render().find("m{url=\"http://x/\\\"q\\\"\\\\\\n\"} 1\n"),
            std::string::npos)
      << page.Render();
}

TEST(PrometheusTextTest, EscapesHelpButNotQuotes) {
  EXPECT_EQ(PrometheusText::EscapeHelp("a \"b\" c\\d\ne"),
            "a \"b\" c\\\\d\\ne");
}

TEST(PrometheusTextTest, SanitizesNames) {
  EXPECT_EQ(PrometheusText::SanitizeName("cvmfs_ok:rule", false),
            "cvmfs_ok:rule");
  EXPECT_EQ(PrometheusText::SanitizeName("cvmfs.n-x", false), "cvmfs_n_x");
  EXPECT_EQ(PrometheusText::SanitizeName("9lives", false), "_lives");
  EXPECT_EQ(PrometheusText::SanitizeName("a:b", true), "a_b");
  EXPECT_EQ(PrometheusText::SanitizeName("", true), "_");
}

TEST(PrometheusTextTest, FormatsFloats) {
  EXPECT_EQ(PrometheusText::FormatValue(0.5), "0.5");
  EXPECT_EQ(PrometheusText::FormatValue(3), "3");
  EXPECT_EQ(PrometheusText::FormatValue(1e-3), "0.001");
  EXPECT_EQ(
      PrometheusText::FormatValue(std::numeric_limits<double>::infinity()),
      "+Inf");
  EXPECT_EQ(
      PrometheusText::FormatValue(-std::numeric_limits<double>::infinity()),
      "-Inf");
  EXPECT_EQ(PrometheusText::FormatValue(std::nan("")), "NaN");
}

TEST(PrometheusTextTest, HistogramBucketsAreCumulative) {
  PrometheusText page;
  page.AddHistogram("lat_seconds", "Latency.", {{"host", "h"}}, {0.1, 1},
                    {2, 3}, 4.5, 7);
  EXPECT_EQ(page.Render(),
            "# HELP lat_seconds Latency.\n"
            "# TYPE lat_seconds histogram\n"
            "lat_seconds_bucket{host=\"h\",le=\"0.1\"} 2\n"
            "lat_seconds_bucket{host=\"h\",le=\"1\"} 5\n"
            "lat_seconds_bucket{host=\"h\",le=\"+Inf\"} 7\n"
            "lat_seconds_sum{host=\"h\"} 4.5\n"
            "lat_seconds_count{host=\"h\"} 7\n");
}

}  // namespace
}  // namespace cvmfs
