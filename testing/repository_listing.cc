#include "testing/repository_listing.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <cstdio>
#include <sstream>

#include "cvmfs/catalog_walker.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "cvmfs/symlink_expansion.h"

namespace cvmfs::testing {

std::string ListingLine::ToString() const {
  return std::string(1, type) + "\t" + mode_octal + "\t" + size + "\t" + mtime +
         "\t" + content + "\t" + linkcount + "\t" + group + "\t" + xattrs;
}

std::string Sha256Hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return ToHex(md, len);
}

Result<std::map<std::string, ListingLine>> ListRepository(
    ObjectStore* store, const Digest& root, const std::string& temp_dir) {
  std::map<std::string, ListingLine> out;
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "CVMFS_ARCH") return std::string("x86_64");
    return std::nullopt;
  };
  CatalogWalker walker(store, temp_dir);
  Status st = walker.Walk(root, [&](const CatalogVisit& v) -> Status {
    return CatalogWalker::ForEachPath(
        v.catalog,
        [&](const std::string& path, const DirectoryEntry& e) -> Status {
          if (path.empty()) return Status::Ok();
          ListingLine line;
          char mode[16];
          std::snprintf(mode, sizeof(mode), "%o", e.mode & 07777);
          line.mode_octal = mode;
          line.mtime = std::to_string(e.mtime);
          line.linkcount = e.IsDirectory() ? "1" : std::to_string(e.linkcount);
          line.group = "-";
          line.content = "-";
          line.size = "0";
          if (e.IsDirectory()) {
            line.type = 'd';
          } else if (e.IsSymlink()) {
            line.type = 'l';
            line.content = ExpandSymlink(e.symlink, env);
            line.size = std::to_string(line.content.size());
          } else if (e.IsSpecial()) {
            line.type = S_ISFIFO(e.mode)   ? 'p'
                        : S_ISSOCK(e.mode) ? 's'
                        : S_ISCHR(e.mode)  ? 'c'
                                           : 'b';
          } else {
            line.type = 'f';
            line.size = std::to_string(e.size);
            std::string content;
            if (e.chunked) {
              CVMFS_ASSIGN_OR_RETURN(auto chunks, v.catalog->Chunks(path));
              for (auto& c : chunks) {
                CVMFS_ASSIGN_OR_RETURN(
                    std::string part,
                    ReadVerifiedObject(store, c.hash, ObjectSuffix::kPartial,
                                       e.compression == Compression::kZlib));
                if (part.size() != c.size)
                  return Status::Corruption("chunk size mismatch in " + path);
                content += part;
              }
            } else if (e.content_hash) {
              CVMFS_ASSIGN_OR_RETURN(
                  content, ReadVerifiedObject(
                               store, *e.content_hash, ObjectSuffix::kNone,
                               e.compression == Compression::kZlib));
            }
            if (content.size() != e.size)
              return Status::Corruption("size mismatch in " + path);
            line.content = Sha256Hex(content);
          }
          if (e.xattrs.entries.empty()) {
            line.xattrs = "-";
          } else {
            std::map<std::string, std::string> sorted(e.xattrs.entries.begin(),
                                                      e.xattrs.entries.end());
            for (auto& [k, val] : sorted) {
              if (!line.xattrs.empty()) line.xattrs += ",";
              line.xattrs += k + "=" + ToHex(val.data(), val.size());
            }
          }
          out[path.substr(1)] = line;
          return Status::Ok();
        });
  });
  if (!st.ok()) return st;
  return out;
}

Result<std::map<std::string, ListingLine>> ParseExpectedListing(
    const std::string& file) {
  CVMFS_ASSIGN_OR_RETURN(std::string text, ReadFile(file));
  std::map<std::string, ListingLine> out;
  std::istringstream in(text);
  std::string row;
  while (std::getline(in, row)) {
    if (row.empty()) continue;
    std::vector<std::string> f;
    size_t pos = 0;
    for (;;) {
      size_t tab = row.find('\t', pos);
      f.push_back(row.substr(
          pos, tab == std::string::npos ? std::string::npos : tab - pos));
      if (tab == std::string::npos) break;
      pos = tab + 1;
    }
    if (f.size() != 9) return Status::Corruption("bad expected line: " + row);
    ListingLine l;
    l.type = f[1][0];
    l.mode_octal = f[2];
    l.size = l.type == 'd' ? "0" : f[3];
    l.mtime = f[4];
    l.content = f[5];
    l.linkcount = f[6];
    l.group = f[7];
    l.xattrs = f[8];
    out[f[0]] = l;
  }
  return out;
}

}  // namespace cvmfs::testing
