// Test helpers: where the shared fixtures are, and a temporary directory that
// removes itself.
#ifndef TESTING_TEST_ENV_H_
#define TESTING_TEST_ENV_H_

#include <string>

namespace cvmfs::testing {

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
