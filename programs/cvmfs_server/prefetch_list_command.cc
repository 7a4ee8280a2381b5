// `cvmfs_server prefetch-list` (doc/format-prefetch-list.md, "Storing"):
//   add [-n NAME] [-a TAG] [-m MSG] FILE [FQRN]   add or replace a list from
//                                                 a recorded path list
//                                                 (FILE "-": stdin)
//   remove -n NAME [-a TAG] [-m MSG] [FQRN]
//   refresh [-a TAG] [-m MSG] [FQRN]              re-resolve every list
//   list [FQRN]                                   the lists, with stale counts
// Every change publishes a new revision (prefetch_lists.h).
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/prefetch_list.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/prefetch_lists.h"
#include "publisher/repository.h"

namespace cvmfs_server {
namespace {

using cvmfs::Result;
using cvmfs::Status;
using publisher::PrefetchListChange;
using publisher::PublishOptions;

struct ListArgs {
  std::string name = "default";
  std::string file;
  std::string tag, message;
  std::string fqrn;
};

Result<std::string> ReadInput(const std::string& file) {
  if (file != "-") return cvmfs::ReadFile(file);
  std::string text((std::istreambuf_iterator<char>(std::cin)),
                   std::istreambuf_iterator<char>());
  if (std::cin.bad())
    return Status::IoError("cannot read the path list from standard input");
  return text;
}

std::string Describe(const cvmfs::PrefetchList& l) {
  return std::to_string(l.files.size()) + " files, " +
         std::to_string(l.objects()) + " objects, " +
         std::to_string(l.bytes()) + " bytes, trigger " +
         cvmfs::EscapeListPath(l.trigger());
}

PublishOptions Options(const ListArgs& args) {
  PublishOptions o;
  o.tag_name = args.tag;
  o.tag_description = args.message;
  return o;
}

void Report(const PrefetchListChange& change, const std::string& what) {
  for (const std::string& w : change.warnings)
    std::fprintf(stderr, "Warning: %s\n", w.c_str());
  std::printf("%s; published revision %llu (root catalog %s)\n", what.c_str(),
              static_cast<unsigned long long>(change.stats.revision),
              change.stats.root_hash.ToString().c_str());
}

Status Add(const cvmfs::SystemPaths& paths, const ListArgs& args) {
  CVMFS_RETURN_IF_ERROR(cvmfs::ValidatePrefetchListName(args.name));
  CVMFS_ASSIGN_OR_RETURN(std::string text, ReadInput(args.file));
  auto recorded = cvmfs::ParseRecordedPaths(text);
  if (!recorded.ok()) return recorded.status().Annotate(args.file);
  if (recorded->empty())
    return Status::InvalidArgument(
        args.file +
        " lists no paths (record with: cvmfs_talk -i "
        "<repository> prefetch record start|stop)");
  CVMFS_ASSIGN_OR_RETURN(auto repo, OpenRepository(paths, args.fqrn));
  CVMFS_ASSIGN_OR_RETURN(PrefetchListChange change,
                         publisher::AddPrefetchList(repo.get(), args.name,
                                                    *recorded, Options(args)));
  for (const cvmfs::PrefetchList& l : change.lists)
    if (l.name == args.name)
      Report(change,
             "Stored prefetch list " + l.name + " (" + Describe(l) + ")");
  return Status::Ok();
}

Status Remove(const cvmfs::SystemPaths& paths, const ListArgs& args) {
  CVMFS_ASSIGN_OR_RETURN(auto repo, OpenRepository(paths, args.fqrn));
  CVMFS_ASSIGN_OR_RETURN(
      PrefetchListChange change,
      publisher::RemovePrefetchList(repo.get(), args.name, Options(args)));
  Report(change, "Removed prefetch list " + args.name + " (" +
                     std::to_string(change.lists.size()) + " left)");
  return Status::Ok();
}

Status Refresh(const cvmfs::SystemPaths& paths, const ListArgs& args) {
  CVMFS_ASSIGN_OR_RETURN(auto repo, OpenRepository(paths, args.fqrn));
  CVMFS_ASSIGN_OR_RETURN(
      PrefetchListChange change,
      publisher::RefreshPrefetchLists(repo.get(), Options(args)));
  Report(change, "Refreshed " + std::to_string(change.lists.size()) +
                     " prefetch lists");
  return Status::Ok();
}

Status List(const cvmfs::SystemPaths& paths, const ListArgs& args) {
  CVMFS_ASSIGN_OR_RETURN(auto repo, OpenRepository(paths, args.fqrn));
  CVMFS_ASSIGN_OR_RETURN(auto lists,
                         publisher::CurrentPrefetchLists(repo.get()));
  if (lists.empty())
    std::printf("No prefetch lists in %s\n", repo->config().fqrn.c_str());
  for (const cvmfs::PrefetchList& l : lists) {
    CVMFS_ASSIGN_OR_RETURN(size_t stale,
                           publisher::CountStaleFiles(repo.get(), l));
    std::printf("%s: %s; %zu stale\n", l.name.c_str(), Describe(l).c_str(),
                stale);
  }
  return Status::Ok();
}

void AddPublishOptions(CLI::App* cmd, const std::shared_ptr<ListArgs>& args) {
  cmd->add_option("-a", args->tag, "tag the new revision");
  cmd->add_option("-m", args->message, "description of the tag");
}

}  // namespace

std::vector<Command> AddPrefetchListCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<ListArgs>();
  CLI::App* cmd = app.add_subcommand(
      "prefetch-list",
      "store recorded prefetch lists in the repository (new revision)");
  cmd->require_subcommand(1);
  CLI::App* add = cmd->add_subcommand(
      "add", "add or replace a list from a recorded path list");
  add->add_option("-n", args->name, "list name (default: default)");
  AddPublishOptions(add, args);
  add->add_option("file", args->file,
                  "recorded path list ('-': standard input)")
      ->required();
  add->add_option("fqrn", args->fqrn, "repository name");
  CLI::App* remove = cmd->add_subcommand("remove", "remove a list");
  remove->add_option("-n", args->name, "list name")->required();
  AddPublishOptions(remove, args);
  remove->add_option("fqrn", args->fqrn, "repository name");
  CLI::App* refresh = cmd->add_subcommand(
      "refresh", "resolve every list again in the current revision");
  AddPublishOptions(refresh, args);
  refresh->add_option("fqrn", args->fqrn, "repository name");
  CLI::App* list = cmd->add_subcommand(
      "list", "show the lists and how many files are stale");
  list->add_option("fqrn", args->fqrn, "repository name");
  // The leaves run; prefetch-list alone is a usage error (CLI11).
  return {MakeCommand(add, paths, args, Add),
          MakeCommand(remove, paths, args, Remove),
          MakeCommand(refresh, paths, args, Refresh),
          MakeCommand(list, paths, args, List)};
}

}  // namespace cvmfs_server
