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

}  // namespace

Status AddTag(Repository* repo, const NewTag& tag) {
  // The current manifest must be readable (the revision tags refer to).
  CVMFS_RETURN_IF_ERROR(repo->CurrentManifest().status());
  CVMFS_ASSIGN_OR_RETURN(auto history, repo->OpenHistory(true));
  CVMFS_ASSIGN_OR_RETURN(Tag added, TaggedRevision(history.get(), tag));
  added.name = tag.name;
  added.description = tag.description;
  added.timestamp = tag.timestamp;
  CVMFS_RETURN_IF_ERROR(history->Insert(added));
  return repo->CommitHistory(std::move(history));
}

Status RemoveTag(Repository* repo, const std::string& name) {
  if (name == cvmfs::kTagTrunk || name == cvmfs::kTagTrunkPrevious)
    return Status::InvalidArgument("tag " + name + " is maintained by publish");
  CVMFS_ASSIGN_OR_RETURN(auto history, repo->OpenHistory(true));
  CVMFS_ASSIGN_OR_RETURN(std::optional<Tag> existing, history->Get(name));
  if (!existing) return Status::NotFound("tag " + name + " does not exist");
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
