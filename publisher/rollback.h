// Rollback: an earlier tagged revision published again, as the next
// revision (`cvmfs_server rollback`). Its root catalog is re-committed with
// the new revision number (Repository::PublishOldRoot); the revisions in
// between stay in the history.
//
// Two steps, so that a caller can name (or confirm) the target before
// anything changes:
//   RollbackTarget()  the tag to roll back to; changes nothing
//   RollBack()        publishes its root catalog; a failure leaves the
//                     served revision as it was
#ifndef PUBLISHER_ROLLBACK_H_
#define PUBLISHER_ROLLBACK_H_

#include <string>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/status.h"
#include "publisher/repository.h"

namespace publisher {

// The tag `tag_name`, or trunk-previous when it is empty; NotFound ("tag
// NAME does not exist") when there is no such tag.
cvmfs::Result<cvmfs::Tag> RollbackTarget(Repository* repo,
                                         const std::string& tag_name);

// Publishes the revision of `target` again as a new revision.
cvmfs::Result<PublishStats> RollBack(Repository* repo,
                                     const cvmfs::Tag& target);

}  // namespace publisher

#endif  // PUBLISHER_ROLLBACK_H_
