// PrometheusText: builds a page in Prometheus's text exposition format
// (version 0.0.4, the format node-exporter's textfile collector and a
// Prometheus scrape read; doc/metrics.md lists what we export).
//
//   # HELP cvmfs_rx_total Bytes downloaded since mounting.
//   # TYPE cvmfs_rx_total counter
//   cvmfs_rx_total{repo="atlas.cern.ch"} 123456
//
// Samples are grouped by family: HELP and TYPE are written once per family,
// before its first sample, however the samples were added. Families keep
// the order of their first Add; samples the order they were added in.
// Label values are escaped (backslash, double quote, newline), HELP texts
// too (backslash, newline). A metric or label name with a character the
// format does not allow has it replaced by '_' (names are constants of the
// callers; the unit tests check that none needs it).
//
// A plain value type, not thread-safe: build it on one thread, then Render().
#ifndef CVMFS_PROMETHEUS_TEXT_H_
#define CVMFS_PROMETHEUS_TEXT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cvmfs {

enum class MetricType { kCounter, kGauge, kHistogram };

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
 public:
  // One sample of family `name`. The type and help of the family's first
  // Add count; later ones are ignored.
  void Add(const std::string& name, MetricType type, const std::string& help,
           const MetricLabels& labels, double value);
  void Add(const std::string& name, MetricType type, const std::string& help,
           const MetricLabels& labels, uint64_t value);
  void Add(const std::string& name, MetricType type, const std::string& help,
           const MetricLabels& labels, int64_t value);

  // A histogram sample: `bucket_bounds` ascending upper bounds (seconds,
  // bytes, ...), `bucket_counts[i]` the observations in (bound[i-1],
  // bound[i]] (this function adds them up into Prometheus's cumulative
  // buckets; the +Inf bucket is `count`), `sum` of all observations and
  // their `count`. Written as name_bucket{...,le="..."}, name_sum and
  // name_count.
  void AddHistogram(const std::string& name, const std::string& help,
                    const MetricLabels& labels,
                    const std::vector<double>& bucket_bounds,
                    const std::vector<uint64_t>& bucket_counts, double sum,
                    uint64_t count);

  // The page, ending in a newline (empty if nothing was added).
  std::string Render() const;

  // Exposed for tests.
  static std::string EscapeLabelValue(const std::string& value);
  static std::string EscapeHelp(const std::string& help);
  static std::string SanitizeName(const std::string& name, bool label);
  static std::string FormatValue(double value);

 private:
  struct Family {
    std::string name;
    MetricType type;
    std::string help;
    std::vector<std::string> lines;  // "name{labels} value"
  };
  Family* FamilyFor(const std::string& name, MetricType type,
                    const std::string& help);
  static std::string Sample(const std::string& name, const MetricLabels& labels,
                            const std::string& value);

  std::vector<Family> families_;
};

}  // namespace cvmfs

#endif  // CVMFS_PROMETHEUS_TEXT_H_
