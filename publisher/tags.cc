#include "publisher/tags.h"

#include <optional>
#include <utility>

namespace publisher {

using cvmfs::Status;
using cvmfs::Tag;

namespace {

// The tag whose revision `tag` names: trunk, or the tagged revision with
// the root catalog tag.root_hash.
cvmfs::Result<Tag> TaggedRevision(cvmfs::HistoryDb* history,
                                  const NewTag& tag) {
  CVMFS_ASSIGN_OR_RETURN(std::optional<Tag> trunk,
                         history->Get(cvmfs::kTagTrunk));
  if (tag.root_hash.empty()) {
    if (!trunk) return Status::NotFound("no trunk tag");
    return *trunk;
  }
  CVMFS_ASSIGN_OR_RETURN(cvmfs::Digest root,
                         cvmfs::Digest::Parse(tag.root_hash));
  CVMFS_ASSIGN_OR_RETURN(std::vector<Tag> all, history->List());
  for (const Tag& t : all)
    if (t.root_hash == root) return t;
  return Status::NotFound("no tagged revision with root hash " + tag.root_hash);
}

Status RefuseUndoTag(const std::string& name) {
  if (name == cvmfs::kTagTrunk || name == cvmfs::kTagTrunkPrevious)
    return Status::InvalidArgument("tag " + name + " is maintained by publish");
  return Status::Ok();
}

}  // namespace

cvmfs::Result<TagChange> AddTag(Repository* repo, const NewTag& tag) {
  if (tag.name.empty()) return Status::InvalidArgument("tag name missing");
  if (tag.name.find_first_of(" \t\n") != std::string::npos)
    return Status::InvalidArgument("spaces are not allowed in tag names");
  CVMFS_RETURN_IF_ERROR(RefuseUndoTag(tag.name));
  // The current manifest must be readable (the revision tags refer to).
  CVMFS_RETURN_IF_ERROR(repo->CurrentManifest().status());
  CVMFS_ASSIGN_OR_RETURN(auto history, repo->OpenHistory(true));
  // The revision's own root hash, revision, size and timestamp.
  CVMFS_ASSIGN_OR_RETURN(Tag added, TaggedRevision(history.get(), tag));
  added.name = tag.name;
  added.description = tag.description;
  CVMFS_ASSIGN_OR_RETURN(std::optional<Tag> existing, history->Get(tag.name));
  TagChange change = TagChange::kCreated;
  if (existing) {
    if (tag.root_hash.empty())
      return Status::AlreadyExists("a tag with the name " + tag.name +
                                   " already exists; move it with -h <root "
                                   "hash>");
    if (existing->root_hash == added.root_hash)
      return Status::InvalidArgument("tag " + tag.name + " already points to " +
                                     added.root_hash.ToString());
    if (added.description.empty()) added.description = existing->description;
    added.branch = existing->branch;
    CVMFS_RETURN_IF_ERROR(history->Remove(tag.name));
    change = TagChange::kMoved;
  }
  CVMFS_RETURN_IF_ERROR(history->Insert(added));
  CVMFS_RETURN_IF_ERROR(repo->CommitHistory(std::move(history)));
  return change;
}

Status RemoveTags(Repository* repo, const std::vector<std::string>& names) {
  if (names.empty()) return Status::InvalidArgument("tag name missing");
  for (const std::string& name : names)
    CVMFS_RETURN_IF_ERROR(RefuseUndoTag(name));
  CVMFS_ASSIGN_OR_RETURN(auto history, repo->OpenHistory(true));
  for (const std::string& name : names) {
    CVMFS_ASSIGN_OR_RETURN(std::optional<Tag> existing, history->Get(name));
    if (!existing) return Status::NotFound("tag " + name + " does not exist");
  }
  for (const std::string& name : names)
    CVMFS_RETURN_IF_ERROR(history->Remove(name));
  return repo->CommitHistory(std::move(history));
}

cvmfs::Result<std::vector<Tag>> ListTags(Repository* repo) {
  CVMFS_ASSIGN_OR_RETURN(auto history, repo->OpenHistory(false));
  return history->List();
}

cvmfs::Result<Tag> FindTag(Repository* repo, const std::string& name) {
  CVMFS_ASSIGN_OR_RETURN(auto history, repo->OpenHistory(false));
  CVMFS_ASSIGN_OR_RETURN(std::optional<Tag> tag, history->Get(name));
  if (!tag) return Status::NotFound("tag " + name + " does not exist");
  return *tag;
}

}  // namespace publisher
