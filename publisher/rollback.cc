#include "publisher/rollback.h"

#include "publisher/tags.h"

namespace publisher {

cvmfs::Result<cvmfs::Tag> RollbackTarget(Repository* repo,
                                         const std::string& tag_name) {
  return FindTag(repo, tag_name.empty() ? std::string(cvmfs::kTagTrunkPrevious)
                                        : tag_name);
}

cvmfs::Result<PublishStats> RollBack(Repository* repo,
                                     const cvmfs::Tag& target) {
  return repo->PublishOldRoot(target.root_hash, PublishOptions{});
}

}  // namespace publisher
