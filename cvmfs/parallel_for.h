// ParallelFor: runs fn(0) .. fn(n - 1) on up to `threads` threads, the
// calling thread one of them, and returns when every call has returned.
// Each thread takes the next index as it finishes one, so calls of uneven
// cost spread evenly. The calls must not depend on each other's order;
// what they write is theirs (one slot of a vector per index, say) or
// guarded by the caller.
#ifndef CVMFS_PARALLEL_FOR_H_
#define CVMFS_PARALLEL_FOR_H_

#include <cstddef>
#include <functional>

namespace cvmfs {

// One thread per core, at least 1 and at most `cap`.
size_t CoreThreads(size_t cap = 8);

void ParallelFor(size_t n, size_t threads,
                 const std::function<void(size_t)>& fn);

}  // namespace cvmfs

#endif  // CVMFS_PARALLEL_FOR_H_
