// `cvmfs_server tag`, with CVMFS 2.12's options and meanings:
//   -a NAME [-m MSG] [-h HASH]  add a tag for trunk (or the tagged revision
//                               with root catalog HASH); an existing NAME is
//                               moved only with -h (publisher/tags.h)
//   -r NAME (repeatable)        remove tags, after a confirmation (-f: none)
//   -i NAME                     inspect a tag
//   -l                          list tags (the default action)
//   -x                          machine readable -l / -i (CVMFS's format:
//                               name hash size revision timestamp branch
//                               description)
//   -b                          branch hierarchy: refused, this publisher
//                               has only the trunk branch (no checkout)
// One action at a time. -h is an option here, so help is --help only.
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/repository.h"
#include "publisher/tags.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;

struct TagArgs {
  std::string add, message, info, fqrn, hash;
  std::vector<std::string> remove;
  bool list = false, force = false, machine_readable = false, branches = false;
};

void PrintMachineReadable(const cvmfs::Tag& t) {
  std::printf(
      "%s %s %llu %llu %lld %s %s\n", t.name.c_str(),
      t.root_hash.ToString().c_str(), static_cast<unsigned long long>(t.size),
      static_cast<unsigned long long>(t.revision),
      static_cast<long long>(t.timestamp),
      t.branch.empty() ? "(default)" : t.branch.c_str(), t.description.c_str());
}

void PrintTag(const cvmfs::Tag& t) {
  std::printf(
      "Name:         %s\nRevision:     %llu\nChannel:      "
      "trunk\nTimestamp:    %s\n"
      "Root Hash:    %s\nCatalog Size: %llu\nDescription:  %s\n",
      t.name.c_str(), static_cast<unsigned long long>(t.revision),
      FormatLocalTime(t.timestamp).c_str(), t.root_hash.ToString().c_str(),
      static_cast<unsigned long long>(t.size), t.description.c_str());
}

void PrintTagList(const std::vector<cvmfs::Tag>& tags) {
  std::printf("%-36s %-42s %6s %-26s %s\n", "Name", "Revision hash", "Rev",
              "Timestamp", "Description");
  for (const cvmfs::Tag& t : tags)
    std::printf("%-36s %-42s %6llu %-26s %s\n", t.name.c_str(),
                t.root_hash.ToString().c_str(),
                static_cast<unsigned long long>(t.revision),
                FormatLocalTime(t.timestamp).c_str(), t.description.c_str());
}

Status Add(publisher::Repository* repo, const TagArgs& args) {
  publisher::NewTag tag;
  tag.name = args.add;
  tag.description = args.message;
  tag.root_hash = args.hash;
  CVMFS_ASSIGN_OR_RETURN(publisher::TagChange change,
                         publisher::AddTag(repo, tag));
  CVMFS_ASSIGN_OR_RETURN(cvmfs::Tag added, publisher::FindTag(repo, tag.name));
  std::printf("%s tag %s -> revision %llu (%s)\n",
              change == publisher::TagChange::kMoved ? "moved" : "added",
              added.name.c_str(),
              static_cast<unsigned long long>(added.revision),
              added.root_hash.ToString().c_str());
  return Status::Ok();
}

Status Remove(publisher::Repository* repo, const TagArgs& args) {
  if (!args.force) {
    std::printf("You are about to remove these tags from %s:\n",
                repo->config().fqrn.c_str());
    for (const std::string& t : args.remove) std::printf("* %s\n", t.c_str());
    std::printf("\n");
    if (!Confirm("Are you sure")) return NotConfirmed("no tag was removed");
  }
  CVMFS_RETURN_IF_ERROR(publisher::RemoveTags(repo, args.remove));
  for (const std::string& t : args.remove)
    std::printf("deleted tag %s\n", t.c_str());
  return Status::Ok();
}

Status RunTag(const cvmfs::SystemPaths& paths, const TagArgs& args) {
  const int actions = !args.add.empty() + !args.remove.empty() +
                      !args.info.empty() + args.list + args.branches;
  if (actions > 1)
    return Status::InvalidArgument(
        "ambiguous parameters: either add (-a), remove (-r), inspect (-i) or "
        "list (-l) tags");
  if (args.branches)
    return Status::NotSupported(
        "tag -b (branch hierarchy) is not supported: this publisher keeps only "
        "the trunk branch (there is no checkout)");
  if ((!args.message.empty() || !args.hash.empty()) && args.add.empty())
    return Status::InvalidArgument("-m and -h go with -a");
  CVMFS_ASSIGN_OR_RETURN(auto repo, OpenRepository(paths, args.fqrn));
  if (!args.add.empty()) return Add(repo.get(), args);
  if (!args.remove.empty()) return Remove(repo.get(), args);
  if (!args.info.empty()) {
    CVMFS_ASSIGN_OR_RETURN(cvmfs::Tag t,
                           publisher::FindTag(repo.get(), args.info));
    if (args.machine_readable)
      PrintMachineReadable(t);
    else
      PrintTag(t);
    return Status::Ok();
  }
  CVMFS_ASSIGN_OR_RETURN(auto tags, publisher::ListTags(repo.get()));
  if (!args.machine_readable) {
    PrintTagList(tags);
    return Status::Ok();
  }
  for (const cvmfs::Tag& t : tags) PrintMachineReadable(t);
  return Status::Ok();
}

}  // namespace

std::vector<Command> AddTagCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<TagArgs>();
  auto* cmd =
      app.add_subcommand("tag", "create, list or remove named snapshots");
  cmd->set_help_flag("--help");
  cmd->add_option("-a", args->add,
                  "create tag NAME for trunk (or -h); an existing one is "
                  "moved only with -h");
  cmd->add_option("-m", args->message, "description of the new tag");
  cmd->add_option("-h", args->hash, "root catalog hash to tag");
  cmd->add_option("-r", args->remove, "remove tag NAME (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("-i", args->info, "inspect tag NAME");
  cmd->add_flag("-l", args->list, "list tags");
  cmd->add_flag("-x", args->machine_readable, "machine readable output");
  cmd->add_flag("-b", args->branches,
                "list the branch hierarchy (not supported)");
  cmd->add_flag("-f", args->force, "don't ask again");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunTag)};
}

}  // namespace cvmfs_server
