#include "server/replication/object_copier.h"

#include <unistd.h>

#include "server/replication/verified_download.h"

namespace replication {

using cvmfs::Status;

struct ObjectCopier::Task {
  std::string path;  // relative object path, "data/ab/cd..."
  cvmfs::Digest digest;
  bool done = false;  // guarded by mu_
  Status status;      // guarded by mu_; valid once done
};

ObjectCopier::ObjectCopier(cvmfs::Fetcher* fetcher, std::string storage_root,
                           int workers, cvmfs::ProgressCounters* progress)
    : fetcher_(fetcher),
      storage_root_(std::move(storage_root)),
      progress_(progress) {
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
  const std::string final_path = storage_root_ + "/" + task.path;
  if (::access(final_path.c_str(), F_OK) == 0) {
    if (progress_) progress_->Add(1);
    cvmfs::MutexLock lock(&mu_);
    ++counters_.already_present;
    return Status::Ok();
  }
  auto file = DownloadVerified(fetcher_, storage_root_, task.path, task.digest);
  if (!file.ok()) return file.status();
  uint64_t size = (*file)->size();
  CVMFS_RETURN_IF_ERROR((*file)->CommitAs(final_path));
  if (progress_) progress_->Add(1, size);
  cvmfs::MutexLock lock(&mu_);
  ++counters_.copied;
  counters_.bytes += size;
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
