#include "cvmfs/config/options_manager.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

// A CVMFS_ROOTDIR with an etc/cvmfs tree to write configuration files into.
class OptionsManagerTest : public ::testing::Test {
 protected:
  std::string Etc(const std::string& rel) const {
    return JoinPath(paths_.EtcCvmfs(), rel);
  }
  void Write(const std::string& rel, const std::string& text) {
    const std::string path = Etc(rel);
    ASSERT_TRUE(MakeDirs(path.substr(0, path.rfind('/'))).ok());
    ASSERT_TRUE(WriteFileAtomic(path, text).ok());
  }
  std::string Value(const std::string& name) const {
    return opts_.Get(name).value_or("<unset>");
  }

  testing::TempDir tmp_;
  SystemPaths paths_{tmp_.path()};
  OptionsManager opts_;
};

TEST_F(OptionsManagerTest, ShellSemanticsOfOneFile) {
  Write("default.local",
        "# CVMFS_COMMENTED=yes\n"
        "CVMFS_PLAIN=1\n"
        "   export CVMFS_EXPORTED=\"two  words\"\n"
        "CVMFS_SINGLE='a;b|c \"quoted\" @fqrn@ $NOT_EXPANDED'\n"
        "CVMFS_SUBST=$(echo from-a-command)\n"
        "CVMFS_MULTI=\"line1\n"
        "line2\n\"\n"
        "CVMFS_REPO=\"repo=$CVMFS_FQRN\"\n"
        "CVMFS_REFERS=\"${CVMFS_PLAIN}0\"\n"
        "readonly CVMFS_READONLY=ro\n");
  ASSERT_TRUE(opts_.ParseFile(Etc("default.local"), "atlas.cern.ch").ok());
  EXPECT_EQ(Value("CVMFS_PLAIN"), "1");
  EXPECT_EQ(Value("CVMFS_EXPORTED"), "two  words");
  EXPECT_EQ(Value("CVMFS_SINGLE"), "a;b|c \"quoted\" @fqrn@ $NOT_EXPANDED");
  EXPECT_EQ(Value("CVMFS_SUBST"), "from-a-command");
  EXPECT_EQ(Value("CVMFS_MULTI"), "line1\nline2\n");
  EXPECT_EQ(Value("CVMFS_REPO"), "repo=atlas.cern.ch");
  EXPECT_EQ(Value("CVMFS_REFERS"), "10");
  EXPECT_EQ(Value("CVMFS_READONLY"), "ro");
  EXPECT_FALSE(opts_.Get("CVMFS_COMMENTED"));
  EXPECT_EQ(opts_.GetSource("CVMFS_SUBST"), Etc("default.local"));
}

TEST_F(OptionsManagerTest, LaterFilesSeeAndOverrideEarlierValues) {
  Write("default.conf", "CVMFS_SERVER_URL=http://a\nCVMFS_QUOTA_LIMIT=4000\n");
  Write("default.local",
        "CVMFS_SERVER_URL=\"$CVMFS_SERVER_URL;http://b\"\n"
        "if [ \"$CVMFS_QUOTA_LIMIT\" -gt 100 ]; then\n"
        "  CVMFS_QUOTA_LIMIT=$((CVMFS_QUOTA_LIMIT / 2))\n"
        "fi\n");
  ASSERT_TRUE(opts_.LoadForRepository(paths_, "atlas.cern.ch").ok());
  EXPECT_EQ(Value("CVMFS_SERVER_URL"), "http://a;http://b");
  EXPECT_EQ(Value("CVMFS_QUOTA_LIMIT"), "2000");
  EXPECT_EQ(opts_.GetSource("CVMFS_SERVER_URL"), Etc("default.local"));
}

TEST_F(OptionsManagerTest, ReadsFilesInCvmfsOrder) {
  // Each file appends its name, so the final value spells the order.
  const std::vector<std::string> order = {"default.conf",
                                          "default.d/10-a.conf",
                                          "default.d/20-b.conf",
                                          "default.local",
                                          "domain.d/cern.ch.conf",
                                          "domain.d/cern.ch.local",
                                          "config.d/atlas.cern.ch.conf",
                                          "config.d/atlas.cern.ch.local"};
  std::string expected;
  for (const std::string& f : order) {
    Write(f, "ORDER=\"${ORDER}/" + f + "\"\nLAST=" + f + "\n");
    expected += "/" + f;
  }
  // Files that must not be read: wrong suffix, a directory, other domains
  // and repositories.
  for (const char* f :
       {"default.d/30-c.conf.rpmsave", "domain.d/example.org.conf",
        "config.d/lhcb.cern.ch.conf", "domain.d/atlas.cern.ch.conf"}) {
    Write(f, "ORDER=wrong\n");
  }
  ASSERT_TRUE(MakeDirs(Etc("default.d/40-dir.conf")).ok());

  ASSERT_TRUE(opts_.LoadForRepository(paths_, "atlas.cern.ch").ok());
  EXPECT_EQ(Value("ORDER"), expected);
  EXPECT_EQ(opts_.GetSource("LAST"), Etc("config.d/atlas.cern.ch.local"));
}

TEST_F(OptionsManagerTest, DomainIsEverythingAfterTheFirstDot) {
  Write("domain.d/cern.ch.conf", "X=wrong\n");
  Write("domain.d/sft.cern.ch.conf", "X=domain\n");
  ASSERT_TRUE(opts_.LoadForRepository(paths_, "a.sft.cern.ch").ok());
  EXPECT_EQ(Value("X"), "domain");
}

TEST_F(OptionsManagerTest, MissingFilesAreSkipped) {
  ASSERT_TRUE(opts_.LoadForRepository(paths_, "atlas.cern.ch").ok());
  EXPECT_TRUE(opts_.Names().empty());
  EXPECT_TRUE(
      opts_.ParseFile(Etc("nothing.conf"), "atlas.cern.ch").IsNotFound());
}

TEST_F(OptionsManagerTest, RejectsNamesThatAreNoRepository) {
  for (const char* fqrn :
       {"", "atlas", ".cern.ch", "atlas.", "a/b.ch", "a b.ch"}) {
    Status s = opts_.LoadForRepository(paths_, fqrn);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << fqrn;
  }
}

TEST_F(OptionsManagerTest, SyntaxErrorNamesFileAndShellMessage) {
  Write("default.conf", "CVMFS_A=before\n");
  Write("default.local", "CVMFS_A=changed\nif then\n");
  Status s = opts_.LoadForRepository(paths_, "atlas.cern.ch");
  ASSERT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find(Etc("default.local")), std::string::npos)
      << s.message();
  std::string lower = s.message();
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  EXPECT_NE(lower.find("syntax error"), std::string::npos) << s.message();
  // A file that fails changes nothing.
  EXPECT_EQ(Value("CVMFS_A"), "before");
}

TEST_F(OptionsManagerTest, RunsInTheFilesDirectory) {
  Write("config.d/common.sh", "CVMFS_FROM_INCLUDE=included\n");
  Write("config.d/atlas.cern.ch.conf",
        ". ./common.sh\nCVMFS_FROM_INCLUDE=$CVMFS_FROM_INCLUDE\n"
        "CVMFS_DIR=$(pwd)\n");
  ASSERT_TRUE(opts_.LoadForRepository(paths_, "atlas.cern.ch").ok());
  EXPECT_EQ(Value("CVMFS_FROM_INCLUDE"), "included");
  char* real = realpath(Etc("config.d").c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  EXPECT_EQ(Value("CVMFS_DIR"), real);
  free(real);
}

TEST_F(OptionsManagerTest, EnvironmentHoldsOnlyOptionsFqrnAndRootdir) {
  ASSERT_NE(getenv("PATH"),
            nullptr);  // in the test's environment, not the shell's
  setenv("CVMFS_TEST_LEAK", "leaked", 1);
  Write("default.local",
        "CVMFS_SEEN_ROOT=${CVMFS_ROOTDIR-unset}\n"
        "CVMFS_SEEN_LEAK=${CVMFS_TEST_LEAK-unset}\n"
        "CVMFS_SEEN_OVERRIDE=${CVMFS_OVERRIDE-unset}\n");
  opts_.Set("CVMFS_OVERRIDE", "from-set", "command line");
  ASSERT_TRUE(
      opts_.ParseFile(Etc("default.local"), "atlas.cern.ch", paths_).ok());
  unsetenv("CVMFS_TEST_LEAK");
  EXPECT_EQ(Value("CVMFS_SEEN_ROOT"), tmp_.path());
  EXPECT_EQ(Value("CVMFS_SEEN_LEAK"), "unset");
  EXPECT_EQ(Value("CVMFS_SEEN_OVERRIDE"), "from-set");

  OptionsManager no_root;
  ASSERT_TRUE(no_root.ParseFile(Etc("default.local"), "atlas.cern.ch").ok());
  EXPECT_EQ(no_root.Get("CVMFS_SEEN_ROOT"), "unset");
}

TEST_F(OptionsManagerTest, ConditionalAssignmentNotTakenKeepsEarlierValue) {
  Write("default.conf", "CVMFS_A=early\n");
  Write("default.local",
        "if false; then\n  CVMFS_A=late\n  CVMFS_B=late\nfi\n");
  ASSERT_TRUE(opts_.LoadForRepository(paths_, "atlas.cern.ch").ok());
  EXPECT_EQ(Value("CVMFS_A"), "early");
  EXPECT_FALSE(opts_.Get("CVMFS_B"));
}

TEST_F(OptionsManagerTest, OutputOfTheFileIsNoValue) {
  Write("default.local",
        "echo 'CVMFS_A=bogus'\nprintf 'CVMFS_A\\0bogus\\0=end\\0'\n"
        "echo noise >&2\nCVMFS_A=real\n");
  ASSERT_TRUE(opts_.ParseFile(Etc("default.local"), "atlas.cern.ch").ok());
  EXPECT_EQ(Value("CVMFS_A"), "real");
  EXPECT_EQ(opts_.Names(), std::vector<std::string>{"CVMFS_A"});
}

TEST_F(OptionsManagerTest, SetOverridesAndDumpShowsSources) {
  Write("default.conf", "CVMFS_B=2\nCVMFS_A=1\n");
  ASSERT_TRUE(opts_.LoadForRepository(paths_, "atlas.cern.ch").ok());
  opts_.Set("CVMFS_B", "two", "command line");
  opts_.Set("CVMFS_C", "3", "command line");
  EXPECT_EQ(opts_.Names(),
            (std::vector<std::string>{"CVMFS_A", "CVMFS_B", "CVMFS_C"}));
  EXPECT_EQ(opts_.GetSource("CVMFS_B"), "command line");
  EXPECT_FALSE(opts_.GetSource("CVMFS_D"));
  EXPECT_EQ(opts_.Dump(false), "CVMFS_A=1\nCVMFS_B=two\nCVMFS_C=3\n");
  EXPECT_EQ(opts_.Dump(true), "CVMFS_A=1    # from " + Etc("default.conf") +
                                  "\nCVMFS_B=two    # from command line\n"
                                  "CVMFS_C=3    # from command line\n");
}

}  // namespace
}  // namespace cvmfs
