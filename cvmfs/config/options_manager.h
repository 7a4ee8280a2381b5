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

#include "cvmfs/config/config_repository_reach.h"
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

  // Reads the configuration of repository `fqrn` under paths.EtcCvmfs()
  // (<etc>) and, if CVMFS_CONFIG_REPOSITORY names a configuration
  // repository, from <repo etc> = $CVMFS_MOUNT_DIR/<config repository>/
  // etc/cvmfs, in CVMFS's order, skipping missing files:
  //   <etc>/default.conf, <etc>/default.d/*.conf (alphabetical),
  //   <repo etc>/default.conf, <etc>/default.local,
  //   <repo etc>/domain.d/<domain>.conf,
  //   <etc>/domain.d/<domain>.conf, <etc>/domain.d/<domain>.local,
  //   <repo etc>/config.d/<fqrn>.conf,
  //   <etc>/config.d/<fqrn>.conf, <etc>/config.d/<fqrn>.local
  // where <domain> is `fqrn` after its first dot; so local files win.
  // CVMFS_CONFIG_REPOSITORY is fixed after default.d/ (Protect): what a
  // later file assigns to it is ignored with a warning. There is no
  // configuration repository for the configuration repository itself, and
  // CVMFS_MOUNT_DIR defaults to paths.MountRoot(). `reach`, if given, is
  // asked to make <repo etc> reachable before its files are read
  // (config_repository_reach.h).
  //
  // A missing <repo etc> directory (or domain.d/, config.d/ in it) is a
  // warning (warnings()), or, with CVMFS_CONFIG_REPO_REQUIRED=yes, the
  // error Unavailable("required configuration repository directory does
  // not exist: <dir>") as in CVMFS.
  //
  // Errors: InvalidArgument for an fqrn that is not a repository name, or
  // from ParseFile; options read before the error stay set.
  Status LoadForRepository(const SystemPaths& paths, const std::string& fqrn,
                           ConfigRepositoryReach* reach = nullptr);

  // <mount dir>/<config repository>/etc/cvmfs if the options name a
  // configuration repository for `fqrn` (as LoadForRepository reads it),
  // else nullopt.
  std::optional<std::string> ConfigRepositoryEtc(
      const std::string& fqrn, const SystemPaths& paths) const;

  // From now on a file that assigns `name` another value than it has now
  // (or an empty one, if unset) leaves it unchanged, with a warning.
  void Protect(const std::string& name);

  // What the files did that CVMFS logs as errors or warnings without
  // failing (a protected parameter changed, the configuration repository
  // missing); each once, in order.
  const std::vector<std::string>& warnings() const { return warnings_; }

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
  // One file of the configuration repository, `rel` below its etc/cvmfs.
  Status ParseExternal(const std::string& rel, const std::string& fqrn,
                       const SystemPaths& paths, ConfigRepositoryReach* reach);
  // ParseFile; a missing file is no error.
  Status ParseIfExists(const std::string& path, const std::string& fqrn,
                       const SystemPaths& paths);
  void Warn(const std::string& warning);
  // CVMFS_MOUNT_DIR, else paths.MountRoot(), without trailing slashes.
  std::string MountDirectory(const SystemPaths& paths) const;

  std::map<std::string, Value> options_;
  std::map<std::string, std::string> protected_;  // name -> fixed value
  std::vector<std::string> warnings_;
};

// True if `fqrn` has the shape of a repository name: it starts with a letter
// or digit, holds only [A-Za-z0-9._-] and at least one dot (mount.cvmfs
// and auto.cvmfs accept the same).
bool IsValidRepositoryName(const std::string& fqrn);

}  // namespace cvmfs

#endif  // CVMFS_CONFIG_OPTIONS_MANAGER_H_
