// `cvmfs_server info [FQRN]`: what a repository is (name, revision,
// whitelist expiry, hash and compression, storage); for a Stratum 1
// replica, its replication status (replica_status.h).
//
// `cvmfs_server update-info [-p] [-e]`: the machine's global info resource
// as CVMFS 2.12 writes it, srv/cvmfs/info/v1/repositories.json (every
// Stratum 0 under "repositories", every replica under "replicas") and
// meta.json (administrator, email, organisation, custom; a skeleton at
// first). Without -e, meta.json is opened in $EDITOR (vi) and installed
// only if it is valid JSON; without -p, the Apache snippet serving
// /cvmfs/info is written to etc/cvmfs/info.apache.conf.
//
// `cvmfs_server update-repoinfo [-f FILE] [FQRN]`: the repository's own
// meta information (the JSON object M its manifest names), as CVMFS: from
// FILE, or edited in $EDITOR from the current one; installed only if it is
// valid JSON, then the manifest is signed again (same revision).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/repository.h"
#include "publisher/server_config.h"
#include "publisher/status_json.h"
#include "server/apache_config.h"
#include "server/replication/replica_config.h"
#include "server/replication/replica_status.h"

namespace cvmfs_server {
namespace {

void PrintInfo(publisher::Repository& repo, const cvmfs::Manifest& m) {
  auto wl = repo.CurrentWhitelist();
  std::printf("Repository name: %s\n", m.fqrn.c_str());
  std::printf("Created by our cvmfs_server (CernVM-FS 2.12 compatible)\n");
  std::printf("Stratum1 Replication Allowed: %s\n",
              repo.store()->Exists(".cvmfs_master_replica") ? "yes" : "no");
  std::printf("Whitelist expires: %s\n",
              wl.ok() ? FormatLocalTime(wl->whitelist.expires).c_str()
                      : wl.status().ToString().c_str());
  std::printf("Revision: %llu\n", static_cast<unsigned long long>(m.revision));
  std::printf(
      "Published: %s\n",
      m.publish_timestamp
          ? FormatLocalTime(static_cast<int64_t>(*m.publish_timestamp)).c_str()
          : "-");
  std::printf("Root catalog: %s (%llu bytes)\n",
              m.root_catalog.ToString().c_str(),
              static_cast<unsigned long long>(m.catalog_size));
  std::printf(
      "Hash algorithm: %s\nCompression: %s\n",
      std::string(cvmfs::AlgorithmName(repo.config().hash_algorithm)).c_str(),
      std::string(cvmfs::CompressionName(repo.config().compression)).c_str());
  std::printf("Garbage collectable: %s\nCatalog TTL: %llu s\n",
              m.garbage_collectable ? "yes" : "no",
              static_cast<unsigned long long>(m.ttl));
  std::printf("Storage: %s\nStratum0 URL: %s\n",
              repo.config().on_s3() ? ("S3 " + repo.config().s3_prefix + "@" +
                                       repo.config().s3_config_file)
                                          .c_str()
                                    : repo.config().storage_dir.c_str(),
              repo.config().stratum0_url.c_str());
}

int RunInfo(const cvmfs::SystemPaths& paths, const std::string& given) {
  auto fqrn = ResolveFqrn(paths, given);
  if (!fqrn.ok()) return FailMessage(fqrn.status());
  if (replication::IsReplica(paths, *fqrn)) {
    auto replica = replication::LoadReplicaStatus(paths, *fqrn);
    if (!replica.ok()) return FailMessage(replica.status());
    std::printf("%s", replication::ReplicaInfoText(*replica).c_str());
    return 0;
  }
  auto repo = publisher::Repository::Open(paths, *fqrn);
  if (!repo.ok()) return FailMessage(repo.status());
  auto manifest = (*repo)->CurrentManifest();
  if (!manifest.ok()) return FailMessage(manifest.status());
  PrintInfo(**repo, manifest->manifest);
  return 0;
}

struct UpdateInfoArgs {
  bool no_apache = false;  // -p
  bool no_edit = false;    // -e
};

constexpr char kMetaSkeleton[] = R"({
  "administrator" : "Your Name",
  "email"         : "you@organisation.org",
  "organisation"  : "Your Organisation",

  "custom" : {
    "_comment" : "Put arbitrary structured data here"
  }
}
)";

std::string InfoDir(const cvmfs::SystemPaths& paths) {
  return paths.SrvCvmfs() + "/info";
}

// The entries of one list of repositories.json, as CVMFS renders them.
std::string RenderRepos(const std::vector<std::pair<std::string, std::string>>&
                            repos) {  // (name under repositories.d, fqrn)
  std::string out;
  for (size_t i = 0; i < repos.size(); ++i) {
    const auto& [name, fqrn] = repos[i];
    out += "    {\n      \"name\"  : \"" + fqrn + "\",\n";
    if (name != fqrn) out += "      \"alias\" : \"" + name + "\",\n";
    out += "      \"url\"   : \"/cvmfs/" + name + "\"\n    }";
    out += i + 1 < repos.size() ? ",\n" : "\n";
  }
  return out;
}

std::string RepositoriesJson(const cvmfs::SystemPaths& paths) {
  std::vector<std::pair<std::string, std::string>> stratum0, stratum1;
  auto names = cvmfs::ListDirectory(paths.RepositoriesD());
  std::vector<std::string> sorted =
      names.ok() ? *names : std::vector<std::string>();
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& n : sorted) {
    if (replication::IsReplica(paths, n)) {
      auto c = replication::ReplicaConfig::Load(paths, n);
      if (c.ok()) stratum1.emplace_back(n, c->fqrn);
      continue;
    }
    auto c = publisher::ServerConfig::Load(paths, n);
    if (c.ok()) stratum0.emplace_back(n, c->fqrn);
  }
  return "{\n  \"schema\" : 1,\n  \"repositories\" : [\n" +
         RenderRepos(stratum0) + "  ],\n  \"replicas\" : [\n" +
         RenderRepos(stratum1) + "  ]\n}\n";
}

// Opens `file` in $EDITOR (vi) on this terminal; the edit must leave JSON.
cvmfs::Status EditJson(const std::string& file) {
  const char* env = std::getenv("EDITOR");
  const std::string editor = env && *env ? env : "vi";
  const std::string command = editor + " '" + file + "'";
  int rc = std::system(command.c_str());
  if (rc != 0)
    return cvmfs::Status::InvalidArgument("the editor (" + editor +
                                          ") failed; nothing was changed");
  CVMFS_ASSIGN_OR_RETURN(std::string text, cvmfs::ReadFile(file));
  cvmfs::Status valid = publisher::ValidateJson(text);
  if (!valid.ok())
    return valid.Annotate("the edited meta.json is not valid JSON; Aborting");
  return cvmfs::Status::Ok();
}

cvmfs::Status UpdateInfo(const cvmfs::SystemPaths& paths,
                         const UpdateInfoArgs& args) {
  if (::geteuid() != 0)
    return cvmfs::Status::Permission("only root can update meta information");
  const std::string v1 = InfoDir(paths) + "/v1";
  if (!cvmfs::PathExists(v1)) {
    std::printf("Creating Info Resource... ");
    CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(v1, 0755));
    CVMFS_RETURN_IF_ERROR(
        cvmfs::WriteFileAtomic(v1 + "/repositories.json", "{}\n", 0644));
    std::printf("done\n");
  }
  if (!cvmfs::PathExists(v1 + "/meta.json"))
    CVMFS_RETURN_IF_ERROR(
        cvmfs::WriteFileAtomic(v1 + "/meta.json", kMetaSkeleton, 0644));
  const std::string apache = paths.EtcCvmfs() + "/info.apache.conf";
  if (!args.no_apache && !cvmfs::PathExists(apache)) {
    std::printf("Creating Apache Configuration for Info Resource... ");
    CVMFS_ASSIGN_OR_RETURN(std::string conf,
                           server::ApacheConfigFor("info", InfoDir(paths)));
    CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(apache, conf, 0644));
    std::printf("done\n%s",
                server::ApacheEnableInstructions(apache, "info").c_str());
  }
  std::string edited;
  if (!args.no_edit) {
    CVMFS_ASSIGN_OR_RETURN(std::string meta,
                           cvmfs::ReadFile(v1 + "/meta.json"));
    char tmpl[] = "/tmp/cvmfs_meta_info.XXXXXX";
    int fd = ::mkstemp(tmpl);
    if (fd < 0) return cvmfs::Status::FromErrno(errno, "mkstemp");
    ::close(fd);
    edited = tmpl;
    cvmfs::Status st = cvmfs::WriteFileAtomic(edited, meta, 0600);
    if (st.ok()) st = EditJson(edited);
    if (!st.ok()) {
      ::unlink(edited.c_str());
      return st;
    }
  }
  std::printf("Updating global JSON information... ");
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(v1 + "/repositories.json",
                                               RepositoriesJson(paths), 0644));
  if (!edited.empty()) {
    auto meta = cvmfs::ReadFile(edited);
    ::unlink(edited.c_str());
    if (!meta.ok()) return meta.status();
    CVMFS_RETURN_IF_ERROR(
        cvmfs::WriteFileAtomic(v1 + "/meta.json", *meta, 0644));
  }
  std::printf("done\n");
  return cvmfs::Status::Ok();
}

struct UpdateRepoinfoArgs {
  std::string file;  // -f
  std::string fqrn;
};

cvmfs::Status UpdateRepoinfo(const cvmfs::SystemPaths& paths,
                             const UpdateRepoinfoArgs& args) {
  CVMFS_ASSIGN_OR_RETURN(auto repo, OpenRepository(paths, args.fqrn));
  std::string json;
  if (!args.file.empty()) {
    CVMFS_ASSIGN_OR_RETURN(json, cvmfs::ReadFile(args.file));
  } else {
    CVMFS_ASSIGN_OR_RETURN(std::string current, repo->Metainfo());
    char tmpl[] = "/tmp/cvmfs_repo_meta_info.XXXXXX";
    int fd = ::mkstemp(tmpl);
    if (fd < 0) return cvmfs::Status::FromErrno(errno, "mkstemp");
    ::close(fd);
    const std::string edited = tmpl;
    cvmfs::Status st = cvmfs::WriteFileAtomic(edited, current, 0600);
    if (st.ok()) st = EditJson(edited);
    if (!st.ok()) {
      ::unlink(edited.c_str());
      return st;
    }
    auto text = cvmfs::ReadFile(edited);
    ::unlink(edited.c_str());
    if (!text.ok()) return text.status();
    json = *text;
  }
  CVMFS_RETURN_IF_ERROR(repo->SetMetainfo(json));
  std::printf("Updated the meta information of %s\n",
              repo->config().fqrn.c_str());
  return cvmfs::Status::Ok();
}

}  // namespace

std::vector<Command> AddInfoCommand(CLI::App& app, const Paths& paths) {
  auto fqrn = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("info", "show repository information");
  cmd->add_option("fqrn", *fqrn, "repository name");
  auto update_args = std::make_shared<UpdateInfoArgs>();
  auto* update = app.add_subcommand(
      "update-info", "write the global info resource (info/v1/*.json)");
  update->add_flag("-p", update_args->no_apache, "no Apache configuration");
  update->add_flag("-e", update_args->no_edit, "do not edit meta.json");
  auto repoinfo_args = std::make_shared<UpdateRepoinfoArgs>();
  auto* repoinfo = app.add_subcommand(
      "update-repoinfo",
      "replace a repository's meta information (JSON) and re-sign");
  repoinfo->add_option("-f", repoinfo_args->file,
                       "the new meta information (default: edit the current "
                       "one in $EDITOR)");
  repoinfo->add_option("fqrn", repoinfo_args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, fqrn, RunInfo),
          MakeCommand(update, paths, update_args, UpdateInfo),
          MakeCommand(repoinfo, paths, repoinfo_args, UpdateRepoinfo)};
}

}  // namespace cvmfs_server
