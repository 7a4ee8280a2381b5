// CollectRepositoryGarbage: the gateway's admin gc (doc/gateway.md, "admin
// gc"): `cvmfs_server gc` of one repository the gateway serves, through the
// publisher library (publisher/gc.h), answering with the text the command
// prints. The caller keeps commits and leases out while it runs (a payload
// uploaded for a lease not yet committed is referenced by no revision).
#ifndef SERVER_GATEWAY_REPOSITORY_GC_H_
#define SERVER_GATEWAY_REPOSITORY_GC_H_

#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"
#include "publisher/gc.h"

namespace gateway {

struct RepositoryGcRequest {
  std::string fqrn;
  publisher::GcPolicy policy;  // none: CollectGarbage's default timespan
  bool dry_run = false;
  bool list = false;  // the names of the objects deleted, one a line, first
};

// The collection's report (publisher::GcReportText, then its warnings); the
// repository's .cvmfs_status.json records last_gc unless a dry run or S3.
cvmfs::Result<std::string> CollectRepositoryGarbage(
    const cvmfs::SystemPaths& paths, const RepositoryGcRequest& request);

}  // namespace gateway

#endif  // SERVER_GATEWAY_REPOSITORY_GC_H_
