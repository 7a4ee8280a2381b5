// OpenObjectStore: the storage a repository's configuration names
// (CVMFS_UPSTREAM_STORAGE): a LocalObjectStore for local,<tmp>,<dir>, an
// S3ObjectStore over libcurl for S3,<tmp>,<prefix>@<config file>, a
// read-only HttpObjectStore of CVMFS_STRATUM0 for gw,<tmp>,<gateway URL>.
#ifndef PUBLISHER_OBJECT_STORE_FACTORY_H_
#define PUBLISHER_OBJECT_STORE_FACTORY_H_

#include <memory>
#include <string>

#include "cvmfs/object_store.h"
#include "cvmfs/status.h"
#include "publisher/server_config.h"

namespace publisher {

cvmfs::Result<std::unique_ptr<cvmfs::ObjectStore>> OpenObjectStore(
    const ServerConfig& config);

// The S3 store of the S3 configuration file `config_file`, its keys under
// `prefix`. `peek_before_put` false: a data object is PUT without a HEAD
// first, whatever CVMFS_S3_PEEK_BEFORE_PUT says (a Stratum 1's snapshot
// asks for each object before it downloads it).
cvmfs::Result<std::unique_ptr<cvmfs::ObjectStore>> OpenS3ObjectStore(
    const std::string& config_file, const std::string& prefix,
    bool peek_before_put = true);

}  // namespace publisher

#endif  // PUBLISHER_OBJECT_STORE_FACTORY_H_
