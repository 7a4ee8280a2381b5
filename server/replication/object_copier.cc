#include "server/replication/object_copier.h"

#include <unistd.h>

#include "cvmfs/bundle.h"
#include "cvmfs/file_util.h"
#include "server/replication/verified_download.h"

namespace replication {

using cvmfs::Status;

struct ObjectCopier::Task {
  std::string path;  // relative object path, "data/ab/cd..."
  cvmfs::Digest digest;
  bool bundle = false;  // a bundle: its members are stored too
  bool done = false;    // guarded by mu_
  Status status;        // guarded by mu_; valid once done
};

ObjectCopier::ObjectCopier(cvmfs::Fetcher* fetcher,
                           SnapshotDestination* destination, int workers,
                           cvmfs::ProgressCounters* progress)
    : fetcher_(fetcher), destination_(destination), progress_(progress) {
  if (workers < 1) workers = 1;
  for (int i = 0; i < workers; ++i)
    workers_.emplace_back([this] { WorkerLoop(); });
}

ObjectCopier::~ObjectCopier() {
  Abort(Status::Unavailable("snapshot aborted"));
  {
    cvmfs::MutexLock lock(&mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ObjectCopier::Enqueue(Batch* batch, const cvmfs::Digest& digest,
                           cvmfs::ObjectSuffix suffix) {
  EnqueueTask(batch, digest, suffix, false);
}

void ObjectCopier::EnqueueBundle(Batch* batch, const cvmfs::Digest& digest) {
  EnqueueTask(batch, digest, cvmfs::ObjectSuffix::kBundle, true);
}

void ObjectCopier::EnqueueTask(Batch* batch, const cvmfs::Digest& digest,
                               cvmfs::ObjectSuffix suffix, bool bundle) {
  std::string path = cvmfs::ObjectPath(digest, suffix);
  cvmfs::MutexLock lock(&mu_);
  auto it = tasks_.find(path);
  if (it != tasks_.end()) {
    batch->tasks_.push_back(it->second);
    return;
  }
  auto task = std::make_shared<Task>();
  task->path = std::move(path);
  task->digest = digest;
  task->bundle = bundle;
  tasks_.emplace(task->path, task);
  if (progress_) progress_->AddFound(1);
  batch->tasks_.push_back(task);
  if (!first_error_.ok()) {
    task->done = true;
    task->status = Status::Unavailable("snapshot aborted");
    return;
  }
  queue_.push_back(std::move(task));
  work_cv_.notify_one();
}

Status ObjectCopier::Wait(const Batch& batch) {
  cvmfs::MutexLock lock(&mu_);
  for (const auto& task : batch.tasks_) {
    while (!task->done) lock.Wait(&done_cv_);
    if (!task->status.ok())
      return first_error_.ok() ? task->status : first_error_;
  }
  return Status::Ok();
}

void ObjectCopier::Abort(const Status& why) {
  cvmfs::MutexLock lock(&mu_);
  if (first_error_.ok()) first_error_ = why;
  for (auto& task : queue_) {
    task->done = true;
    task->status = Status::Unavailable("snapshot aborted");
  }
  queue_.clear();
  done_cv_.notify_all();
}

CopyCounters ObjectCopier::counters() const {
  cvmfs::MutexLock lock(&mu_);
  return counters_;
}

void ObjectCopier::WorkerLoop() {
  while (true) {
    std::shared_ptr<Task> task;
    {
      cvmfs::MutexLock lock(&mu_);
      while (!stopping_ && queue_.empty()) lock.Wait(&work_cv_);
      if (queue_.empty()) return;  // stopping
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    Complete(task, Copy(*task));
  }
}

Status ObjectCopier::Copy(const Task& task) {
  if (destination_->Has(task.path)) {
    if (progress_) progress_->Add(1);
    cvmfs::MutexLock lock(&mu_);
    ++counters_.already_present;
    return Status::Ok();
  }
  if (task.bundle) return CopyBundle(task);
  auto file = DownloadVerified(fetcher_, destination_, task.path, task.digest);
  if (!file.ok()) return file.status();
  uint64_t size = (*file)->size();
  CVMFS_RETURN_IF_ERROR((*file)->Commit());
  if (progress_) progress_->Add(1, size);
  cvmfs::MutexLock lock(&mu_);
  ++counters_.copied;
  counters_.bytes += size;
  return Status::Ok();
}

namespace {

// Stores the members of a bundle as their own objects, each verified
// against its digest before it gets its name.
class MemberWriter : public cvmfs::BundleReader::Visitor {
 public:
  explicit MemberWriter(SnapshotDestination* destination)
      : destination_(destination) {}

  Status BeginMember(const cvmfs::BundleMember& member) override {
    member_ = member;
    name_ = cvmfs::ObjectPath(member.digest, cvmfs::ObjectSuffix::kNone);
    paths_.push_back(name_);
    if (destination_->Has(name_)) return Status::Ok();
    auto file = destination_->Stage(name_, member.digest.algorithm);
    if (!file.ok()) return file.status();
    file_ = std::move(file).value();
    return Status::Ok();
  }
  Status MemberData(const void* data, size_t size) override {
    return file_ ? file_->Write(data, size) : Status::Ok();
  }
  Status EndMember() override {
    if (!file_) return Status::Ok();
    std::unique_ptr<StagedObject> file = std::move(file_);
    cvmfs::Digest got = file->Finish();
    if (!(got == member_.digest))
      return Status::Corruption("bundle member " + name_ +
                                " has content hash " + got.ToString());
    CVMFS_RETURN_IF_ERROR(file->Commit());
    ++stored_;
    stored_bytes_ += member_.size;
    return Status::Ok();
  }

  // Object paths of every member, and what was stored.
  const std::vector<std::string>& paths() const { return paths_; }
  uint64_t stored() const { return stored_; }
  uint64_t stored_bytes() const { return stored_bytes_; }

 private:
  SnapshotDestination* const destination_;
  cvmfs::BundleMember member_;
  std::string name_;
  std::unique_ptr<StagedObject> file_;  // null: the member is present already
  std::vector<std::string> paths_;
  uint64_t stored_ = 0, stored_bytes_ = 0;
};

}  // namespace

Status ObjectCopier::CopyBundle(const Task& task) {
  if (destination_->Has(task.path)) {
    // Stored only after its members: they are present too.
    if (progress_) progress_->Add(1);
    cvmfs::MutexLock lock(&mu_);
    ++counters_.already_present;
    return Status::Ok();
  }
  auto file = DownloadVerified(fetcher_, destination_, task.path, task.digest);
  if (!file.ok() && file.status().code() == Status::Code::kNotFound) {
    if (progress_) progress_->Add(1);
    cvmfs::MutexLock lock(&mu_);
    ++counters_.bundles_missing;
    return Status::Ok();
  }
  if (!file.ok()) return file.status();
  CVMFS_ASSIGN_OR_RETURN(std::string bytes, cvmfs::ReadFile((*file)->path()));
  MemberWriter writer(destination_);
  cvmfs::BundleReader reader(task.digest.algorithm, &writer);
  Status st = reader.Feed(bytes.data(), bytes.size());
  if (st.ok()) st = reader.Finish();
  if (!st.ok()) return st.Annotate("bundle " + task.path);
  CVMFS_RETURN_IF_ERROR((*file)->Commit());
  if (progress_) {
    progress_->AddFound(writer.stored());
    progress_->Add(1 + writer.stored(), bytes.size() + writer.stored_bytes());
  }
  cvmfs::MutexLock lock(&mu_);
  ++counters_.copied;
  ++counters_.bundles;
  counters_.bytes += bytes.size() + writer.stored_bytes();
  counters_.copied += writer.stored();
  counters_.from_bundles += writer.stored();
  // The members are done: whoever enqueues one later shares this.
  for (const std::string& path : writer.paths()) {
    if (tasks_.count(path)) continue;
    auto member = std::make_shared<Task>();
    member->path = path;
    member->done = true;
    tasks_.emplace(path, std::move(member));
  }
  return Status::Ok();
}

void ObjectCopier::Complete(const std::shared_ptr<Task>& task, Status status) {
  if (!status.ok()) Abort(status);
  cvmfs::MutexLock lock(&mu_);
  task->done = true;
  task->status = std::move(status);
  done_cv_.notify_all();
}

}  // namespace replication
