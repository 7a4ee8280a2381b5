// `cvmfs_server mkfs [-o OWNER] [-w URL] [-a HASH] [-Z COMPRESSION] [-z] [-X]
// [-k KEYS_DIR] [-m] [-u gw,TMP,URL] FQRN`: creates a repository
// (publisher::Mkfs), then its serving configuration (mkfs_configs.h) and
// its transaction mounts. With -u gw,... it sets up a publisher machine of
// a repository a gateway stores: no storage, nothing to serve.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "programs/cvmfs_server/transaction_commands.h"
#include "publisher/repository.h"
#include "publisher/server_config.h"
#include "server/mkfs_configs.h"

namespace cvmfs_server {
namespace {

struct MkfsArgs {
  publisher::MkfsOptions options;
  std::string hash = "sha1";
  std::string compression = "zlib";
  bool replicable = false;  // -m: CVMFS 2.12's default already
  std::string upstream;     // -u
};

int RunMkfs(const cvmfs::SystemPaths& paths, const MkfsArgs& args) {
  auto algo = cvmfs::ParseAlgorithmName(args.hash);
  if (!algo.ok()) return FailMessage(algo.status());
  auto compression = cvmfs::ParseCompressionName(args.compression);
  if (!compression.ok()) return FailMessage(compression.status());
  publisher::MkfsOptions options = args.options;
  options.hash_algorithm = *algo;
  options.compression = *compression;
  if (!args.upstream.empty()) {
    if (args.upstream.rfind("gw,", 0) != 0)
      return FailMessage(cvmfs::Status::InvalidArgument(
          "-u " + args.upstream +
          ": only gw,<tmp dir>,<gateway URL> is accepted (local storage is "
          "the default; S3 is -s <config file>)"));
    auto url = publisher::ParseGatewayUpstream(args.upstream);
    if (!url.ok()) return FailMessage(url.status());
    options.gateway_url = *url;
  }
  cvmfs::Status st = publisher::Mkfs(paths, options);
  if (!st.ok()) return FailMessage(st);
  if (!options.gateway_url.empty()) {
    std::printf("created publisher %s of the gateway %s (reading %s)\n",
                options.fqrn.c_str(), options.gateway_url.c_str(),
                options.stratum0_url.c_str());
    return ExitCode(SetUpTransactions(paths, options.fqrn));
  }
  std::printf("created repository %s (storage %s)\n", options.fqrn.c_str(),
              paths.Storage(options.fqrn).c_str());
  if (int rc = server::WriteServingConfigsAfterMkfs(paths, options.fqrn))
    return rc;
  return ExitCode(SetUpTransactions(paths, options.fqrn));
}

}  // namespace

std::vector<Command> AddMkfsCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<MkfsArgs>();
  publisher::MkfsOptions& o = args->options;
  auto* cmd = app.add_subcommand("mkfs", "create a new repository");
  cmd->add_option("-o", o.owner, "owner of the repository");
  cmd->add_option("-w", o.stratum0_url, "stratum 0 URL");
  cmd->add_option("-s", o.s3_config_file,
                  "S3 configuration file: the repository is stored in S3 "
                  "(CVMFS_UPSTREAM_STORAGE=S3,...; doc/s3.md)");
  cmd->add_option("-u", args->upstream,
                  "upstream storage: gw,<tmp dir>,<gateway URL>/api/v1 makes "
                  "this machine a publisher of the gateway's existing "
                  "repository (with -w and -k; doc/gateway.md)");
  cmd->add_option("-a", args->hash, "hash algorithm: sha1, rmd160, shake128");
  cmd->add_option("-Z", args->compression, "compression: zlib, none");
  cmd->add_flag("-X", o.external_data,
                "external data: files are published as external "
                "(CVMFS_EXTERNAL_DATA=true; use with -Z none)");
  cmd->add_flag("-z", o.garbage_collection,
                "make the repository garbage-collectable");
  cmd->add_option("-k", o.import_keys_dir,
                  "use the existing keys (FQRN.masterkey, .pub, .key, .crt) "
                  "of this directory");
  cmd->add_flag("-m", args->replicable,
                "make the repository replicable (.cvmfs_master_replica; "
                "every new repository is, as with CVMFS 2.12)");
  cmd->add_option("fqrn", o.fqrn, "repository name")->required();
  return {MakeCommand(cmd, paths, args, RunMkfs)};
}

}  // namespace cvmfs_server
