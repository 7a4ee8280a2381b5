// `cvmfs_server tag [-a NAME [-m MSG] [-h HASH] | -r NAME | -i NAME | -l]
// [FQRN]`: adds, removes, shows or lists the named snapshots of a
// repository (publisher/tags.h). Without -a, -r or -i it lists. -f is
// accepted and does nothing (nothing asks). -h is an option here, so help
// is --help only.
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
  std::string add, message, remove, info, fqrn, hash;
  bool list = false, force = false;
};

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

int RunTag(const cvmfs::SystemPaths& paths, const TagArgs& args) {
  auto repo = OpenRepository(paths, args.fqrn);
  if (!repo.ok()) return FailMessage(repo.status());
  if (!args.add.empty()) {
    publisher::NewTag tag;
    tag.name = args.add;
    tag.description = args.message;
    tag.root_hash = args.hash;
    tag.timestamp = ::time(nullptr);
    return ExitCode(publisher::AddTag(repo->get(), tag));
  }
  if (!args.remove.empty())
    return ExitCode(publisher::RemoveTag(repo->get(), args.remove));
  auto tags = publisher::ListTags(repo->get());
  if (!tags.ok()) return FailMessage(tags.status());
  if (args.info.empty()) {
    PrintTagList(*tags);
    return 0;
  }
  for (const cvmfs::Tag& t : *tags) {
    if (t.name != args.info) continue;
    PrintTag(t);
    return 0;
  }
  return FailMessage(Status::NotFound("tag " + args.info + " does not exist"));
}

}  // namespace

std::vector<Command> AddTagCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<TagArgs>();
  auto* cmd =
      app.add_subcommand("tag", "create, list or remove named snapshots");
  cmd->set_help_flag("--help");
  cmd->add_option("-a", args->add,
                  "add a tag for the current (or -h) revision");
  cmd->add_option("-m", args->message, "description of the new tag");
  cmd->add_option("-h", args->hash, "root catalog hash to tag");
  cmd->add_option("-r", args->remove, "remove a tag");
  cmd->add_option("-i", args->info, "show a tag");
  cmd->add_flag("-l", args->list, "list tags");
  cmd->add_flag("-f", args->force, "do not ask");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunTag)};
}

}  // namespace cvmfs_server
