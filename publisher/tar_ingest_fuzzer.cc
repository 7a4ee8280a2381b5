// Fuzz target: a tarball through the real ingest (tar_ingest.h): the input
// is written to a file in a temporary directory and ingested, as
// `cvmfs_server ingest` does, into an empty catalog tree over an in-memory
// object store (as catalog_tree_test.cc sets one up), with the ingestion
// pipeline storing the contents; what ingests is then committed, which
// writes the catalogs, and the committed tree is opened and looked at again.
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "cvmfs/catalog/dirent.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_store.h"
#include "publisher/catalog_tree.h"
#include "publisher/ingest_pipeline.h"
#include "publisher/tar_ingest.h"
#include "testing/test_env.h"

namespace {

cvmfs::DirectoryEntry RootDir() {
  cvmfs::DirectoryEntry e;
  e.mode = S_IFDIR | 0755;
  e.size = 4096;
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cvmfs::testing::TempDir tmp;
  const std::string tarball = tmp.Sub("in.tar");
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!cvmfs::WriteFileAtomic(tarball, bytes).ok()) abort();
  publisher::CatalogTreeOptions tree_options;
  tree_options.temp_dir = tmp.Sub("work");
  if (!cvmfs::MakeDirs(tree_options.temp_dir).ok()) abort();

  cvmfs::MemoryObjectStore store;
  auto tree =
      publisher::CatalogTree::CreateEmpty(&store, RootDir(), tree_options);
  if (!tree.ok()) abort();
  cvmfs::Status ingested;
  {
    publisher::IngestOptions ingest_options;
    ingest_options.workers = 1;
    publisher::IngestPipeline pipeline(&store, ingest_options);
    publisher::TarIngestOptions options;
    options.tarball = tarball;
    ingested = publisher::IngestTar(options, tree->get(), &pipeline);
  }
  if (!ingested.ok()) return 0;
  auto commit = (*tree)->Commit(2, 1000);
  if (!commit.ok()) {
    // An ingested tree must be committable: anything else is a bug.
    fprintf(stderr, "commit after a successful ingest failed: %s\n",
            commit.status().ToString().c_str());
    abort();
  }
  tree->reset();
  auto reopened =
      publisher::CatalogTree::Open(&store, commit->root_hash, tree_options);
  if (!reopened.ok()) {
    fprintf(stderr, "committed tree does not open: %s\n",
            reopened.status().ToString().c_str());
    abort();
  }
  (void)(*reopened)->List("");
  return 0;
}
