#include "client/prefetch/directory_readahead.h"

#include <algorithm>
#include <utility>

namespace cvmfs::client {

std::vector<ObjectRequest> DirectoryReadahead::Start(
    const std::string& dir, std::vector<ObjectRequest> files,
    const std::string& opened) {
  cvmfs::MutexLock lock(&mu_);
  if (dirs_.size() >= kMaxDirectories || files_ + files.size() > kMaxFiles) {
    dirs_.clear();
    files_ = 0;
  }
  State& s = dirs_[dir];
  files_ -= s.files.size();
  s = State{};
  s.files = std::move(files);
  files_ += s.files.size();
  for (size_t i = 0; i < s.files.size(); ++i)
    s.index.emplace(s.files[i].description, i);
  auto it = s.index.find(opened);
  s.last = it == s.index.end() ? 0 : it->second;
  const size_t from = it == s.index.end() ? 0 : it->second + 1;
  // A reader whose last run of reads in order (in another directory) was
  // long enough is a tree reader going on.
  s.run = last_run_;
  return Queue(&s, from, s.run < kMinRun ? 0 : kInitialWindow);
}

std::vector<ObjectRequest> DirectoryReadahead::Opened(const std::string& dir,
                                                      const std::string& path) {
  cvmfs::MutexLock lock(&mu_);
  auto d = dirs_.find(dir);
  if (d == dirs_.end()) return {};
  State& s = d->second;
  auto it = s.index.find(path);
  if (it == s.index.end()) return {};
  const size_t pos = it->second;
  const size_t previous = s.last;
  s.last = pos;
  if (pos == previous) return {};  // the same file again
  if (pos < s.queued && pos + s.window >= s.queued) {
    // Inside the last window: the reader keeps up, go further.
    last_run_ = ++s.run;
    return Queue(&s, s.queued, std::min(s.window * 2, kMaxWindow));
  }
  const bool in_order = pos == previous + 1;
  last_run_ = s.run = in_order ? s.run + 1 : 0;
  if (pos >= s.queued && in_order && s.run >= kMinRun) {
    // Reads in order again, from beyond what was queued: start over there.
    return Queue(&s, pos + 1, kInitialWindow);
  }
  return {};
}

std::vector<ObjectRequest> DirectoryReadahead::Queue(State* s, size_t from,
                                                     size_t window) {
  if (s->done) return {};
  from = std::min(from, s->files.size());
  const size_t to = std::min(from + window, s->files.size());
  std::vector<ObjectRequest> out(s->files.begin() + from,
                                 s->files.begin() + to);
  s->queued = to;
  s->window = window;
  if (to == s->files.size()) {  // nothing left to queue
    s->done = true;
    files_ -= s->files.size();
    s->files = {};
  }
  return out;
}

void DirectoryReadahead::Clear() {
  cvmfs::MutexLock lock(&mu_);
  dirs_.clear();
  files_ = 0;
}

bool DirectoryReadahead::TreeReader() const {
  cvmfs::MutexLock lock(&mu_);
  return last_run_ >= kTreeRun;
}

size_t DirectoryReadahead::files() const {
  cvmfs::MutexLock lock(&mu_);
  return files_;
}

size_t DirectoryReadahead::directories() const {
  cvmfs::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [dir, state] : dirs_) n += !state.done;
  return n;
}

}  // namespace cvmfs::client
