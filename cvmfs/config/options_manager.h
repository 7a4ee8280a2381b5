// The client configuration as CVMFS administrators know it: shell files under
// /etc/cvmfs, read in a fixed order, later values overriding earlier ones,
// each value remembering the file it came from (doc/client.md,
// "Configuration"; `cvmfs_config showconfig`).
//
// Values are raw strings here; ClientSettings (client_settings.h) turns them
// into typed, validated parameters.
//
// Thread safety: thread-compatible. main() builds one OptionsManager, loads
// it, and afterwards only reads it (concurrent const calls are fine).
#ifndef CVMFS_CONFIG_OPTIONS_MANAGER_H_
#define CVMFS_CONFIG_OPTIONS_MANAGER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace cvmfs {

class OptionsManager {
 public:
  // Sources `path` with /bin/sh (shell_source.h) in an environment holding
  // every option known so far, CVMFS_FQRN=`fqrn` and, if `paths.root` is set,
  // CVMFS_ROOTDIR, so files can refer to earlier values
  // (CVMFS_SERVER_URL="$CVMFS_SERVER_URL;http://b"). Every parameter the file
  // assigns and that is set afterwards takes its new value and `path` as its
  // source.
  // Errors: NotFound for a missing file; InvalidArgument naming the file and
  // quoting the shell for a file the shell cannot source. On error no option
  // changes.
  Status ParseFile(const std::string& path, const std::string& fqrn,
                   const SystemPaths& paths = SystemPaths());

  // Reads the configuration of repository `fqrn` under paths.EtcCvmfs(), in
  // CVMFS's order, skipping missing files:
  //   default.conf, default.d/*.conf (alphabetical), default.local,
  //   domain.d/<domain>.conf, domain.d/<domain>.local,
  //   config.d/<fqrn>.conf, config.d/<fqrn>.local
  // where <domain> is `fqrn` after its first dot.
  //
  // Not done: CVMFS also reads the same files from the configuration
  // repository (CVMFS_CONFIG_REPOSITORY, mounted under /cvmfs) between the
  // local ones; that layer needs a mounted client and is out of scope here.
  //
  // Errors: InvalidArgument for an fqrn that is not a repository name, or
  // from ParseFile; options read before the error stay set.
  Status LoadForRepository(const SystemPaths& paths, const std::string& fqrn);

  // Sets one option, e.g. a command-line override; `source` is shown by
  // GetSource() and Dump() (e.g. "command line").
  void Set(const std::string& name, const std::string& value,
           const std::string& source);

  std::optional<std::string> Get(const std::string& name) const;
  std::optional<std::string> GetSource(const std::string& name) const;
  std::vector<std::string> Names() const;  // sorted

  // One line per option, sorted by name, as `cvmfs_config showconfig`
  // prints them: `NAME=value`, with `    # from <source>` appended if
  // `with_sources`.
  std::string Dump(bool with_sources) const;

 private:
  struct Value {
    std::string value;
    std::string source;
  };
  std::map<std::string, std::string> ShellEnvironment(
      const std::string& fqrn, const SystemPaths& paths) const;

  std::map<std::string, Value> options_;
};

// True if `fqrn` has the shape of a repository name: it starts with a letter
// or digit, holds only [A-Za-z0-9._-] and at least one dot (mount.cvmfs
// and auto.cvmfs accept the same).
bool IsValidRepositoryName(const std::string& fqrn);

}  // namespace cvmfs

#endif  // CVMFS_CONFIG_OPTIONS_MANAGER_H_
