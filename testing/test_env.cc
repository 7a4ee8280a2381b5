#include "testing/test_env.h"

#include <cstdlib>
#include <stdexcept>

#include "cvmfs/file_util.h"

namespace cvmfs::testing {

std::string SourceDir() {
  const char* s = std::getenv("CVMFS_SOURCE_DIR");
  return s ? s : ".";
}

std::string FixturesDir() {
  const char* s = std::getenv("CVMFS_FIXTURES_DIR");
  if (s) return s;
  return SourceDir() + "/../shared/fixtures";
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/cvmfs-test.XXXXXX";
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() { (void)RemoveTree(path_); }

}  // namespace cvmfs::testing
