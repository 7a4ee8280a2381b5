#include "publisher/ordered_registration.h"

#include <utility>

namespace publisher {

using cvmfs::Status;

Status RegisterIngestedFile(const PendingRegistration& file,
                            CatalogTree* tree) {
  return PutIngestedFile(file.path, file.entry, file.content.get(), tree);
}

OrderedRegistration::OrderedRegistration(size_t max_pending,
                                         RegisterFn register_file)
    : max_pending_(max_pending), register_file_(std::move(register_file)) {}

OrderedRegistration::OrderedRegistration(size_t max_pending, CatalogTree* tree)
    : OrderedRegistration(max_pending, [tree](const PendingRegistration& f) {
        return RegisterIngestedFile(f, tree);
      }) {}

Status OrderedRegistration::Add(PendingRegistration file) {
  queue_.push_back(std::move(file));
  ++added_;
  return FlushReady();
}

Status OrderedRegistration::FlushReady() { return Flush(false); }

Status OrderedRegistration::FlushAll() { return Flush(true); }

Status OrderedRegistration::Flush(bool wait_all) {
  while (!queue_.empty() && (wait_all || queue_.size() > max_pending_ ||
                             queue_.front().content->Ready())) {
    CVMFS_RETURN_IF_ERROR(register_file_(queue_.front()));
    queue_.pop_front();
  }
  return Status::Ok();
}

}  // namespace publisher
