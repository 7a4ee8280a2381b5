#include "cvmfs/config/option_reader.h"

#include "cvmfs/text.h"

namespace cvmfs {

std::optional<std::string> OptionReader::Optional(
    const std::string& name) const {
  std::optional<std::string> value = options_.Get(name);
  if (!value || value->empty()) return std::nullopt;
  return value;
}

std::string OptionReader::String(const std::string& name,
                                 const std::string& def) const {
  return Optional(name).value_or(def);
}

Result<bool> OptionReader::Bool(const std::string& name, bool def) const {
  std::optional<std::string> value = Optional(name);
  if (!value) return def;
  std::optional<bool> parsed = ParseBoolean(*value);
  if (!parsed) return Invalid(name, "yes or no (also on/off, true/false, 1/0)");
  return *parsed;
}

Result<int64_t> OptionReader::Integer(const std::string& name, int64_t def,
                                      int64_t min, int64_t max,
                                      const std::string& expected) const {
  std::optional<std::string> value = Optional(name);
  if (!value) return def;
  std::optional<int64_t> parsed = ParseInt64(Trim(*value, kBlanks));
  if (!parsed || *parsed < min || *parsed > max) return Invalid(name, expected);
  return *parsed;
}

Status OptionReader::Invalid(const std::string& name,
                             const std::string& expected) const {
  return Status::InvalidArgument(
      name + "='" + options_.Get(name).value_or("") + "' (from " +
      options_.GetSource(name).value_or("nowhere") + "): expected " + expected);
}

}  // namespace cvmfs
