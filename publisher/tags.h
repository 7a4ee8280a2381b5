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
};

// What AddTag did.
enum class TagChange { kCreated, kMoved };

// Tags the revision `tag` names, as CVMFS's tag_edit does. The tag gets
// that revision's own timestamp, root catalog size and revision number
// (not the time of tagging). A name that exists already is moved only when
// a root hash is given (moving is explicit): AlreadyExists ("a tag with
// the name NAME already exists; move it with -h <root hash>") otherwise,
// InvalidArgument when it points at that hash already; a moved tag keeps
// its description unless a new one is given. InvalidArgument for names with
// spaces and for trunk and trunk-previous; NotFound when there is no trunk
// tag or no tagged revision with `root_hash`.
cvmfs::Result<TagChange> AddTag(Repository* repo, const NewTag& tag);

// Removes the tags `names` together (one new history), as CVMFS's
// tag_edit -d: nothing is removed when one of them is trunk or
// trunk-previous (InvalidArgument, publish maintains them) or does not
// exist (NotFound "tag NAME does not exist").
cvmfs::Status RemoveTags(Repository* repo,
                         const std::vector<std::string>& names);

// Every tag, newest revision first (HistoryDb::List).
cvmfs::Result<std::vector<cvmfs::Tag>> ListTags(Repository* repo);

// The tag `name`; NotFound ("tag NAME does not exist") when there is none.
cvmfs::Result<cvmfs::Tag> FindTag(Repository* repo, const std::string& name);

}  // namespace publisher

#endif  // PUBLISHER_TAGS_H_
