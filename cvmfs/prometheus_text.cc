#include "cvmfs/prometheus_text.h"

#include <charconv>
#include <cmath>

namespace cvmfs {

namespace {

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

bool IsNameChar(char c, bool first, bool label) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return true;
  if (c == ':' && !label) return true;
  return !first && c >= '0' && c <= '9';
}

}  // namespace

std::string PrometheusText::EscapeLabelValue(const std::string& value) {
  std::string out;
  out.reserve(value.size());
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
  return out;
}

std::string PrometheusText::EscapeHelp(const std::string& help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string PrometheusText::SanitizeName(const std::string& name, bool label) {
  if (name.empty()) return "_";
  std::string out = name;
  for (size_t i = 0; i < out.size(); ++i)
    if (!IsNameChar(out[i], i == 0, label)) out[i] = '_';
  return out;
}

std::string PrometheusText::FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  // Shortest representation that reads back as the same double.
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  if (ec != std::errc()) return "NaN";
  return std::string(buf, end);
}

PrometheusText::Family* PrometheusText::FamilyFor(const std::string& name,
                                                  MetricType type,
                                                  const std::string& help) {
  const std::string clean = SanitizeName(name, false);
  for (Family& f : families_)
    if (f.name == clean) return &f;
  families_.push_back(Family{clean, type, help, {}});
  return &families_.back();
}

std::string PrometheusText::Sample(const std::string& name,
                                   const MetricLabels& labels,
                                   const std::string& value) {
  std::string out = name;
  if (!labels.empty()) {
    out += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out += ',';
      out += SanitizeName(labels[i].first, true) + "=\"" +
             EscapeLabelValue(labels[i].second) + '"';
    }
    out += '}';
  }
  return out + ' ' + value;
}

void PrometheusText::Add(const std::string& name, MetricType type,
                         const std::string& help, const MetricLabels& labels,
                         double value) {
  Family* f = FamilyFor(name, type, help);
  f->lines.push_back(Sample(f->name, labels, FormatValue(value)));
}

void PrometheusText::Add(const std::string& name, MetricType type,
                         const std::string& help, const MetricLabels& labels,
                         uint64_t value) {
  Family* f = FamilyFor(name, type, help);
  f->lines.push_back(Sample(f->name, labels, std::to_string(value)));
}

void PrometheusText::Add(const std::string& name, MetricType type,
                         const std::string& help, const MetricLabels& labels,
                         int64_t value) {
  Family* f = FamilyFor(name, type, help);
  f->lines.push_back(Sample(f->name, labels, std::to_string(value)));
}

void PrometheusText::AddHistogram(const std::string& name,
                                  const std::string& help,
                                  const MetricLabels& labels,
                                  const std::vector<double>& bucket_bounds,
                                  const std::vector<uint64_t>& bucket_counts,
                                  double sum, uint64_t count) {
  Family* f = FamilyFor(name, MetricType::kHistogram, help);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bucket_bounds.size(); ++i) {
    if (i < bucket_counts.size()) cumulative += bucket_counts[i];
    MetricLabels with_le = labels;
    with_le.emplace_back("le", FormatValue(bucket_bounds[i]));
    f->lines.push_back(
        Sample(f->name + "_bucket", with_le, std::to_string(cumulative)));
  }
  MetricLabels with_inf = labels;
  with_inf.emplace_back("le", "+Inf");
  f->lines.push_back(
      Sample(f->name + "_bucket", with_inf, std::to_string(count)));
  f->lines.push_back(Sample(f->name + "_sum", labels, FormatValue(sum)));
  f->lines.push_back(Sample(f->name + "_count", labels, std::to_string(count)));
}

std::string PrometheusText::Render() const {
  std::string out;
  for (const Family& f : families_) {
    out += "# HELP " + f.name + ' ' + EscapeHelp(f.help) + '\n';
    out += "# TYPE " + f.name + ' ' + TypeName(f.type) + '\n';
    for (const std::string& line : f.lines) out += line + '\n';
  }
  return out;
}

}  // namespace cvmfs
