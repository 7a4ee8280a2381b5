// OrderedRegistration: files whose contents the ingestion pipeline stores in
// any order, registered in the catalog tree in the order they were added.
//
//   Add(file) ─► [ f1 f2 f3 ... in submission order ] ─► register(f1), ...
//                  the head is registered once its content is stored; while
//                  more than `max_pending` files wait, Add waits for the head
//
// The order makes a publish independent of the workers' timing (a later
// entry for the same path lands last), and the bound keeps the number of
// files held by the pipeline (open descriptors, promised bytes) in check.
// Before an entry that does not go through the pipeline (a symlink, a
// removal) is put into the tree, FlushAll() registers everything before it.
//
// Thread safety: one thread (the publisher's) uses an OrderedRegistration;
// the pipeline's workers only complete the PendingFiles it holds.
#ifndef PUBLISHER_ORDERED_REGISTRATION_H_
#define PUBLISHER_ORDERED_REGISTRATION_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "cvmfs/catalog/dirent.h"
#include "cvmfs/status.h"
#include "publisher/catalog_tree.h"
#include "publisher/ingest_pipeline.h"

namespace publisher {

// A regular file whose content is (or was) in the pipeline.
struct PendingRegistration {
  std::string path;
  cvmfs::DirectoryEntry entry;
  std::shared_ptr<PendingFile> content;
};

// PutIngestedFile for `file`: how both ingesters register a file.
cvmfs::Status RegisterIngestedFile(const PendingRegistration& file,
                                   CatalogTree* tree);

class OrderedRegistration {
 public:
  using RegisterFn = std::function<cvmfs::Status(const PendingRegistration&)>;

  // `register_file` puts one file into the tree (it may wait for the
  // content); it is called in the order of Add.
  OrderedRegistration(size_t max_pending, RegisterFn register_file);
  // Registers into `tree` with RegisterIngestedFile.
  OrderedRegistration(size_t max_pending, CatalogTree* tree);

  // Queues `file`, then registers what FlushReady does.
  cvmfs::Status Add(PendingRegistration file);
  // Registers the files at the head whose contents are stored, and waits
  // for the head while more than `max_pending` files are queued. The first
  // error stops it and is returned.
  cvmfs::Status FlushReady();
  // Waits for and registers every queued file.
  cvmfs::Status FlushAll();

  size_t pending() const { return queue_.size(); }
  // How many files were added, and how many of them (the first ones, in
  // order) are registered: file number n (counting from 0 at its Add) is in
  // the tree once registered() > n.
  uint64_t added() const { return added_; }
  uint64_t registered() const { return added_ - queue_.size(); }

 private:
  cvmfs::Status Flush(bool wait_all);

  const size_t max_pending_;
  const RegisterFn register_file_;
  std::deque<PendingRegistration> queue_;  // in the order of Add
  uint64_t added_ = 0;
};

}  // namespace publisher

#endif  // PUBLISHER_ORDERED_REGISTRATION_H_
