#include "publisher/object_store_factory.h"

#include <utility>

#include "publisher/http_object_store.h"
#include "publisher/s3_config.h"
#include "publisher/s3_curl_transport.h"
#include "publisher/s3_object_store.h"

namespace publisher {

cvmfs::Result<std::unique_ptr<cvmfs::ObjectStore>> OpenObjectStore(
    const ServerConfig& config) {
  if (config.on_gateway())
    return std::unique_ptr<cvmfs::ObjectStore>(
        std::make_unique<HttpObjectStore>(
            config.stratum0_url, config.fqrn + " is published through the " +
                                     "gateway " + config.gateway_url));
  if (!config.on_s3())
    return std::unique_ptr<cvmfs::ObjectStore>(
        std::make_unique<cvmfs::LocalObjectStore>(config.storage_dir));
  return OpenS3ObjectStore(config.s3_config_file, config.s3_prefix);
}

cvmfs::Result<std::unique_ptr<cvmfs::ObjectStore>> OpenS3ObjectStore(
    const std::string& config_file, const std::string& prefix,
    bool peek_before_put) {
  CVMFS_ASSIGN_OR_RETURN(S3Config s3, S3Config::Load(config_file));
  S3StoreOptions options;
  options.prefix = prefix;
  options.max_retries = s3.max_retries;
  options.peek_before_put = s3.peek_before_put && peek_before_put;
  return std::unique_ptr<cvmfs::ObjectStore>(std::make_unique<S3ObjectStore>(
      std::make_unique<CurlS3Transport>(std::move(s3)), std::move(options)));
}

}  // namespace publisher
