// `cvmfs_server list-catalogs [-s] [-e] [-h] [-x] [FQRN]`, as CVMFS 2.12
// (swissknife lsrepo): the catalogs of the current revision, one a line:
//   [tree indent] [hash ] [sizeB ] [entries ] mountpoint
//   -s  catalog sizes (bytes of the uncompressed catalog, then "B")
//   -e  entry counts (rows of the catalog)
//   -h  catalog hashes
//   -x  machine readable: no tree indentation
// The tree indentation is CVMFS's: "\u2502  " per level above the first and
// "\u251c\u2500 " before a nested catalog. -h is an option here, so help is
// --help only.
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
  bool size = false, entries = false, hash = false, machine_readable = false;
};

// One catalog's line, as lsrepo prints it.
cvmfs::Result<std::string> Line(const ListCatalogsArgs& args,
                                const cvmfs::Manifest& m,
                                const cvmfs::CatalogVisit& v) {
  std::string line;
  if (!args.machine_readable) {
    for (int i = 1; i < v.depth + 1; ++i)
      if (i < v.depth) line += "\u2502  ";
    if (v.depth > 0) line += "\u251c\u2500 ";
  }
  if (args.hash) line += v.hash.ToString() + " ";
  if (args.size) {
    uint64_t size = v.size ? v.size : m.catalog_size;
    line += std::to_string(size) + "B ";
  }
  if (args.entries) {
    // The rows of the catalog table (Catalog::GetNumEntries in CVMFS).
    uint64_t rows = 0;
    CVMFS_RETURN_IF_ERROR(v.catalog->ForEachEntry(
        [&rows](const cvmfs::PathHash&, const cvmfs::PathHash&,
                const cvmfs::DirectoryEntry&) {
          ++rows;
          return Status::Ok();
        }));
    line += std::to_string(rows) + " ";
  }
  line += v.mountpoint.empty() ? "/" : v.mountpoint;
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
        CVMFS_ASSIGN_OR_RETURN(std::string line, Line(args, m, v));
        std::printf("%s\n", line.c_str());
        return Status::Ok();
      }));
}

}  // namespace

std::vector<Command> AddListCatalogsCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<ListCatalogsArgs>();
  auto* cmd = app.add_subcommand("list-catalogs",
                                 "list the catalogs of the current revision");
  cmd->set_help_flag("--help");
  cmd->add_flag("-s", args->size, "catalog sizes");
  cmd->add_flag("-e", args->entries, "catalog entry counts");
  cmd->add_flag("-h", args->hash, "catalog hashes");
  cmd->add_flag("-x", args->machine_readable,
                "machine readable (no tree indentation)");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunListCatalogs)};
}

}  // namespace cvmfs_server
