// `cvmfs_server squid-config [-n NETWORK]... [-s STRATUM1]... [options]`:
// prints a squid.conf for a site proxy (squid_config.h) to stdout or writes
// it to a file.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "server/squid_config.h"

namespace cvmfs_server {
namespace {

using server::SquidConfigOptions;

struct SquidArgs {
  SquidConfigOptions options;
  std::vector<std::string> networks;
  std::string output;
};

int PrintSquidConfig(const SquidArgs& args) {
  SquidConfigOptions options = args.options;
  if (!args.networks.empty()) options.client_networks = args.networks;
  auto text = server::SquidConfigFor(options);
  cvmfs::Status st = text.status();
  if (st.ok() && !args.output.empty())
    st = cvmfs::WriteFileAtomic(args.output, *text, 0644);
  else if (st.ok())
    std::fputs(text->c_str(), stdout);
  return ExitCode(st);
}

}  // namespace

std::vector<Command> AddSquidConfigCommand(CLI::App& app,
                                           const Paths& /*paths*/) {
  auto args = std::make_shared<SquidArgs>();
  SquidConfigOptions& o = args->options;
  auto* cmd = app.add_subcommand(
      "squid-config", "print a squid.conf for a CernVM-FS site proxy");
  cmd->add_option("-n,--network", args->networks,
                  "client network allowed to use the proxy (CIDR, repeatable;"
                  " default: the private IPv4 ranges)");
  cmd->add_option("-s,--stratum1", o.stratum1_hosts,
                  "only forward to this server (repeatable)");
  cmd->add_option("--port", o.port, "proxy port")->capture_default_str();
  cmd->add_option("--cache-dir", o.cache_dir, "disk cache directory")
      ->capture_default_str();
  cmd->add_option("--cache-mb", o.cache_dir_mb, "disk cache size in MB")
      ->capture_default_str();
  cmd->add_option("--mem-mb", o.cache_mem_mb, "memory cache size in MB")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "write to this file");
  return {{cmd, [args] { return PrintSquidConfig(*args); }}};
}

}  // namespace cvmfs_server
