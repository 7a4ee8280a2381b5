// Tags: the named snapshots in a repository's history database, as
// `cvmfs_server tag` manages them. trunk and trunk-previous are kept by
// publish; the others are added and removed here.
//
// A change opens the current history writable, changes it and commits it
// (Repository::CommitHistory: a new history object, the manifest re-signed);
// a failure leaves the served history as it was. Reads open the current
// history read-only. One call at a time per Repository.
#ifndef PUBLISHER_TAGS_H_
#define PUBLISHER_TAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/status.h"
#include "publisher/repository.h"

namespace publisher {

struct NewTag {
  std::string name;
  std::string description;
  // Root catalog hash (hex, as given on the command line) of a revision
  // that is tagged already; empty: the revision trunk points at.
  std::string root_hash;
  int64_t timestamp = 0;  // Unix seconds, stored with the tag
};

// Tags the revision `tag` names. An existing tag of the same name is
// replaced, i.e. moved to that revision. NotFound when there is no trunk
// tag or no tagged revision with `root_hash`.
cvmfs::Status AddTag(Repository* repo, const NewTag& tag);

// Removes tag `name`. InvalidArgument for trunk and trunk-previous (publish
// maintains them), NotFound when there is no such tag.
cvmfs::Status RemoveTag(Repository* repo, const std::string& name);

// Every tag, newest revision first (HistoryDb::List).
cvmfs::Result<std::vector<cvmfs::Tag>> ListTags(Repository* repo);

// The tag `name`; NotFound ("tag NAME does not exist") when there is none.
cvmfs::Result<cvmfs::Tag> FindTag(Repository* repo, const std::string& name);

}  // namespace publisher

#endif  // PUBLISHER_TAGS_H_
