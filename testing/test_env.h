// Test helpers: where the shared fixtures are, and a temporary directory that
// removes itself.
#ifndef TESTING_TEST_ENV_H_
#define TESTING_TEST_ENV_H_

#include <string>

#ifndef __has_feature
#define __has_feature(x) 0
#endif

namespace cvmfs::testing {

// Whether this build is instrumented by AddressSanitizer or ThreadSanitizer
// (-DCVMFS_SANITIZE=...; GCC defines __SANITIZE_*__, Clang has
// __has_feature). They slow code down 2-15 times, so a test's bound on
// speed means nothing there; what the test checks besides speed still holds.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || \
    __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// ../shared/fixtures relative to the source tree (CVMFS_SOURCE_DIR).
std::string FixturesDir();
std::string SourceDir();

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

}  // namespace cvmfs::testing

#endif  // TESTING_TEST_ENV_H_
