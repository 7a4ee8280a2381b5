// Fuzz target: configuration files (shell_source.h, options_manager.h,
// option_reader.h, url_lists.h). The raw input goes through
// AssignedParameters, the line scanner that decides which names to read back.
// The real shell is then run on a *defanged* copy: every line that assigns
// `[export ]NAME=value` becomes `NAME='value'` (single-quoted, so nothing in
// it is executed) and every other line a comment. This fuzzes what our code
// does around /bin/sh (the name scan, quoting of values with any bytes,
// reading back the NUL-separated records, the option store and the typed
// readers) without ever executing fuzzed shell code. A CVMFS_* value must
// come back exactly as written.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "cvmfs/config/option_reader.h"
#include "cvmfs/config/options_manager.h"
#include "cvmfs/config/shell_source.h"
#include "cvmfs/config/url_lists.h"
#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace {

bool IsIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

std::string SingleQuoted(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') {
      out += "'\\''";
    } else if (c != '\0') {  // the environment cannot hold NUL
      out += c;
    }
  }
  return out + "'";
}

// The defanged file and the value each name is last assigned.
std::string Defang(std::string_view text,
                   std::map<std::string, std::string>* expected) {
  std::string out;
  while (!text.empty()) {
    size_t nl = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(std::min(nl + 1, text.size()));
    std::string_view body = line;
    if (body.substr(0, 7) == "export ") body.remove_prefix(7);
    size_t eq = body.find('=');
    std::string_view name = body.substr(0, eq);
    if (eq != std::string_view::npos && IsIdentifier(name)) {
      std::string_view value = body.substr(eq + 1);
      out += std::string(name) + "=" + SingleQuoted(value) + "\n";
      std::string stored;
      for (char c : value) {
        if (c != '\0') stored += c;
      }
      (*expected)[std::string(name)] = stored;
    } else {
      out += "#";
      for (char c : line) out += c == '\0' ? ' ' : c;
      out += "\n";
    }
  }
  return out;
}

void ReadTyped(const cvmfs::OptionsManager& options) {
  cvmfs::OptionReader reader(options);
  for (const std::string& name : options.Names()) {
    (void)reader.Bool(name, false);
    (void)reader.Integer(name, 0, -1, 1 << 30, "a number");
  }
  if (auto urls = options.Get("CVMFS_SERVER_URL"))
    (void)cvmfs::ParseServerUrls(*urls, "fuzz.example.org", "fuzz");
  if (auto proxies = options.Get("CVMFS_HTTP_PROXY"))
    (void)cvmfs::ParseProxyGroups(*proxies);
  (void)options.Dump(true);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::string& name : cvmfs::AssignedParameters(text)) {
    if (!IsIdentifier(name)) {
      fprintf(stderr, "AssignedParameters returned '%s'\n", name.c_str());
      abort();
    }
  }
  std::map<std::string, std::string> expected;
  const std::string file = Defang(text, &expected);
  cvmfs::testing::TempDir tmp;
  const std::string path = tmp.Sub("default.conf");
  if (!cvmfs::WriteFileAtomic(path, file).ok()) abort();
  cvmfs::OptionsManager options;
  cvmfs::Status status = options.ParseFile(path, "fuzz.example.org");
  if (!status.ok()) return 0;  // e.g. an assignment to a read-only variable
  for (const auto& [name, value] : expected) {
    if (name.rfind("CVMFS_", 0) != 0) continue;
    auto got = options.Get(name);
    if (!got || *got != value) {
      fprintf(stderr, "%s='%s' read back as '%s'\n", name.c_str(),
              value.c_str(), got ? got->c_str() : "(unset)");
      abort();
    }
  }
  ReadTyped(options);
  return 0;
}
