// Thread-safety annotations: which mutex guards which member, and which
// functions must (or must not) be called with it held. Clang checks them at
// compile time with -Wthread-safety (test/style/thread_safety_check.sh builds
// the libraries that way with the warnings as errors); with other compilers
// the macros expand to nothing. See
// https://clang.llvm.org/docs/ThreadSafetyAnalysis.html
//
//   class Counter {
//    public:
//     void Add(int n) EXCLUDES(mu_) { MutexLock lock(&mu_); AddLocked(n); }
//    private:
//     void AddLocked(int n) REQUIRES(mu_) { total_ += n; }
//     Mutex mu_;  // guards total_; leaf lock
//     int total_ GUARDED_BY(mu_) = 0;
//   };
//
// The lock types themselves (Mutex, MutexLock) are in cvmfs/mutex.h.
#ifndef CVMFS_THREAD_ANNOTATIONS_H_
#define CVMFS_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define CVMFS_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define CVMFS_THREAD_ANNOTATION(x)  // no-op
#endif

// A type that is a lock ("mutex"); see Mutex.
#define CAPABILITY(x) CVMFS_THREAD_ANNOTATION(capability(x))
// An RAII type that holds a lock for its lifetime; see MutexLock.
#define SCOPED_CAPABILITY CVMFS_THREAD_ANNOTATION(scoped_lockable)

// A member read or written only with the lock held.
#define GUARDED_BY(x) CVMFS_THREAD_ANNOTATION(guarded_by(x))
// A pointer member whose pointee is accessed only with the lock held.
#define PT_GUARDED_BY(x) CVMFS_THREAD_ANNOTATION(pt_guarded_by(x))

// Lock order between two locks (checked only with -Wthread-safety-beta;
// the comment at each mutex states its place in the order).
#define ACQUIRED_BEFORE(...) \
  CVMFS_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) CVMFS_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))

// The caller holds the lock (exclusively / shared) when calling.
#define REQUIRES(...) CVMFS_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) \
  CVMFS_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))

// The function takes / gives up the lock (and returns with it so).
#define ACQUIRE(...) CVMFS_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) \
  CVMFS_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) CVMFS_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) \
  CVMFS_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) \
  CVMFS_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))

// The caller must not hold the lock (the function takes it itself).
#define EXCLUDES(...) CVMFS_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// Tells the analysis that the lock is held here (checked at run time, if
// at all, by the function itself).
#define ASSERT_CAPABILITY(x) CVMFS_THREAD_ANNOTATION(assert_capability(x))

// The function returns a reference to the given lock.
#define RETURN_CAPABILITY(x) CVMFS_THREAD_ANNOTATION(lock_returned(x))

// Turns the analysis off for one function; give the reason in a comment.
#define NO_THREAD_SAFETY_ANALYSIS \
  CVMFS_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // CVMFS_THREAD_ANNOTATIONS_H_
