#include "server/gateway/repository_gc.h"

#include <ctime>
#include <memory>

#include "publisher/repository.h"
#include "publisher/status_json.h"

namespace gateway {

cvmfs::Result<std::string> CollectRepositoryGarbage(
    const cvmfs::SystemPaths& paths, const RepositoryGcRequest& request) {
  CVMFS_ASSIGN_OR_RETURN(std::unique_ptr<publisher::Repository> repo,
                         publisher::Repository::Open(paths, request.fqrn));
  publisher::GcOptions options;
  options.policy = request.policy;
  options.dry_run = request.dry_run;
  std::string text;
  if (request.list) {
    options.on_sweep = [&text](const std::string& name, uint64_t) {
      text += name + "\n";
    };
  }
  CVMFS_ASSIGN_OR_RETURN(publisher::GcReport report,
                         publisher::CollectGarbage(repo.get(), options));
  text += publisher::GcReportText(report, request.dry_run);
  for (const std::string& w : report.warnings) text += "warning: " + w + "\n";
  if (!request.dry_run && !repo->config().on_s3()) {
    CVMFS_RETURN_IF_ERROR(
        publisher::UpdateStatusField(repo->config().storage_dir, "last_gc",
                                     publisher::StatusTime(::time(nullptr))));
  }
  return text;
}

}  // namespace gateway
