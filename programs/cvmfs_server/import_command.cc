// `cvmfs_server import [-w URL] [-o OWNER] [-u UPSTREAM] [-k KEYS_DIR] [-r]
// [-p] [-m] [-f UNIONFS] FQRN`: takes over an existing Stratum 0 storage in
// place (publisher::Import), local or in S3, then writes its serving
// configuration (unless -p or S3) and sets up its transaction mounts, as
// after mkfs. CVMFS 2.12's -l,
// -s, -c, -g, -t and -R are refused by name.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "programs/cvmfs_server/transaction_commands.h"
#include "publisher/import.h"
#include "publisher/s3_config.h"
#include "server/mkfs_configs.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;

struct ImportArgs {
  publisher::ImportOptions options;
  std::string upstream;
  std::string union_fs;
  bool no_apache = false;
  // Refused (CVMFS 2.12 options this implementation does not have).
  bool legacy = false, statistics = false, chown_backend = false,
       recreate_repo_key = false, masterkeycard = false;
  std::string file_ownership;
};

Status RefuseUnsupported(const ImportArgs& a) {
  struct Refused {
    bool given;
    const char* what;
    const char* hint;
  };
  for (const Refused& r : {
           Refused{a.legacy, "-l (import a legacy 2.0.x repository)", ""},
           Refused{a.statistics, "-s (legacy migration statistics)", ""},
           Refused{!a.file_ownership.empty(),
                   "-c (file ownership of the legacy migration)", ""},
           Refused{a.chown_backend, "-g (chown the storage)",
                   "; run chown -R OWNER on the storage before the import"},
           Refused{a.recreate_repo_key,
                   "-t (new repository key and certificate)", ""},
           Refused{a.masterkeycard, "-R (master key on a smartcard)", ""},
       }) {
    if (r.given)
      return Status::NotSupported(std::string("import: option ") + r.what +
                                  " is not supported" + r.hint);
  }
  if (!a.union_fs.empty() && a.union_fs != "overlayfs")
    return Status::NotSupported("import: -f " + a.union_fs +
                                ": only overlayfs is supported");
  return Status::Ok();
}

// -u local,<tmp dir>,<storage dir> or S3,<tmp dir>,<prefix>@<config file>
// into `o`.
Status ParseUpstream(const std::string& upstream, publisher::ImportOptions* o) {
  if (upstream.rfind("S3,", 0) == 0) {
    CVMFS_ASSIGN_OR_RETURN(publisher::S3Upstream s3,
                           publisher::ParseS3Upstream(upstream));
    o->s3_config_file = s3.config_file;
    o->s3_prefix = s3.prefix;
    return Status::Ok();
  }
  const std::string prefix = "local,";
  const size_t second = upstream.find(',', prefix.size());
  if (upstream.rfind(prefix, 0) != 0 || second == std::string::npos ||
      second + 1 == upstream.size())
    return Status::NotSupported(
        "import: -u " + upstream +
        ": import takes local storage (local,<tmp dir>,<storage dir>) or S3 "
        "(S3,<tmp dir>,<prefix>@<S3 config file>)");
  o->storage_dir = upstream.substr(second + 1);
  return Status::Ok();
}

int RunImport(const cvmfs::SystemPaths& paths, const ImportArgs& args) {
  if (Status st = RefuseUnsupported(args); !st.ok()) return FailMessage(st);
  publisher::ImportOptions options = args.options;
  if (!args.upstream.empty()) {
    if (Status st = ParseUpstream(args.upstream, &options); !st.ok())
      return FailMessage(st);
  }
  auto defaulted = publisher::WithDefaults(paths, options);
  if (!defaulted.ok()) return FailMessage(defaulted.status());
  options = std::move(*defaulted);
  auto report = publisher::Import(paths, options);
  if (!report.ok()) return FailMessage(report.status());
  for (const std::string& w : report->warnings)
    std::fprintf(stderr, "cvmfs_server: warning: %s\n", w.c_str());
  std::printf(
      "imported repository %s (storage %s): revision %llu, %s, %s, %zu "
      "tags, %zu reflog entries%s\n",
      options.fqrn.c_str(), publisher::StorageName(options).c_str(),
      static_cast<unsigned long long>(report->revision),
      std::string(cvmfs::AlgorithmName(report->hash_algorithm)).c_str(),
      report->garbage_collectable ? "garbage-collectable"
                                  : "not garbage-collectable",
      report->tags, report->reflog_entries,
      options.recreate_whitelist ? ", whitelist re-signed" : "");
  // A repository on S3 is served by the bucket, not by Apache.
  if (!args.no_apache && options.s3_config_file.empty()) {
    if (int rc = server::WriteServingConfigsAfterMkfs(paths, options.fqrn))
      return rc;
  }
  return ExitCode(SetUpTransactions(paths, options.fqrn));
}

}  // namespace

std::vector<Command> AddImportCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<ImportArgs>();
  publisher::ImportOptions& o = args->options;
  auto* cmd = app.add_subcommand(
      "import", "take over an existing repository's storage and keys");
  cmd->add_option("-w", o.stratum0_url, "stratum 0 URL");
  cmd->add_option("-o", o.owner, "owner of the repository");
  cmd->add_option("-u", args->upstream,
                  "upstream storage: local,<tmp dir>,<storage dir> or "
                  "S3,<tmp dir>,<prefix>@<S3 config file>");
  cmd->add_option("-k", o.keys_dir,
                  "directory of the keys FQRN.pub, .key, .crt (.masterkey)");
  cmd->add_flag("-r", o.recreate_whitelist,
                "re-sign the whitelist with the master key (an expired one "
                "is accepted)");
  cmd->add_flag("-p", args->no_apache, "no Apache configuration");
  cmd->add_flag("-m", o.replicable, "make the repository replicable");
  cmd->add_option("-f", args->union_fs, "union file system (overlayfs)");
  cmd->add_flag("-l", args->legacy, "legacy 2.0.x repository (unsupported)");
  cmd->add_flag("-s", args->statistics, "migration statistics (unsupported)");
  cmd->add_option("-c", args->file_ownership,
                  "file ownership UID:GID (unsupported)");
  cmd->add_flag("-g", args->chown_backend, "chown the storage (unsupported)");
  cmd->add_flag("-t", args->recreate_repo_key,
                "new repository key and certificate (unsupported)");
  cmd->add_flag("-R", args->masterkeycard, "masterkeycard (unsupported)");
  cmd->add_option("fqrn", o.fqrn, "repository name")->required();
  return {MakeCommand(cmd, paths, args, RunImport)};
}

}  // namespace cvmfs_server
