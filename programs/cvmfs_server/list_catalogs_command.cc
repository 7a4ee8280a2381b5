// `cvmfs_server list-catalogs [-s] [-e] [-x] [FQRN]`: the catalogs of the
// current revision as a tree (two spaces per level), with their sizes,
// entry counts and hashes on request.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/catalog_walker.h"
#include "cvmfs/file_util.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/repository.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;

struct ListCatalogsArgs {
  std::string fqrn;
  bool size = false, entries = false, hash = false;
};

// One catalog's line.
std::string Line(const ListCatalogsArgs& args, const cvmfs::Manifest& m,
                 const cvmfs::CatalogVisit& v) {
  std::string line = std::string(v.depth * 2, ' ') +
                     (v.mountpoint.empty() ? "/" : v.mountpoint);
  if (args.hash) line += "  " + v.hash.ToString();
  if (args.size) {
    uint64_t size = v.size ? v.size : m.catalog_size;
    line += "  " + std::to_string(size) + " B";
  }
  if (args.entries) {
    auto c = v.catalog->ReadCounters();
    if (c.ok()) {
      const auto& s = c->self;
      line += "  " + std::to_string(s.regular + s.symlink + s.special + s.dir) +
              " entries";
    }
  }
  return line;
}

int RunListCatalogs(const cvmfs::SystemPaths& paths,
                    const ListCatalogsArgs& args) {
  auto repo = OpenRepository(paths, args.fqrn);
  if (!repo.ok()) return FailMessage(repo.status());
  auto manifest = (*repo)->CurrentManifest();
  if (!manifest.ok()) return FailMessage(manifest.status());
  const cvmfs::Manifest& m = manifest->manifest;
  auto tmp = (*repo)->MakeTempDir();
  if (!tmp.ok()) return FailMessage(tmp.status());
  cvmfs::ScopedRemoveTree remove_tmp(*tmp);
  cvmfs::CatalogWalker walker((*repo)->store(), *tmp);
  return ExitCode(
      walker.Walk(m.root_catalog, [&](const cvmfs::CatalogVisit& v) -> Status {
        std::printf("%s\n", Line(args, m, v).c_str());
        return Status::Ok();
      }));
}

}  // namespace

std::vector<Command> AddListCatalogsCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<ListCatalogsArgs>();
  auto* cmd = app.add_subcommand("list-catalogs",
                                 "list the catalogs of the current revision");
  cmd->add_flag("-s", args->size, "print catalog sizes");
  cmd->add_flag("-e", args->entries, "print entry counts");
  cmd->add_flag("-x", args->hash, "print catalog hashes");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunListCatalogs)};
}

}  // namespace cvmfs_server
