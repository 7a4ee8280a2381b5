// The configuration repository layer of OptionsManager::LoadForRepository:
// CVMFS's order between the local files, the protected
// CVMFS_CONFIG_REPOSITORY, and CVMFS_CONFIG_REPO_REQUIRED.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cvmfs/config/options_manager.h"
#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

// Records which directories the loader asked to reach.
class RecordingReach : public ConfigRepositoryReach {
 public:
  void Reach(const std::string& dir) override { dirs.push_back(dir); }
  std::vector<std::string> dirs;
};

class ConfigRepositoryLayerTest : public ::testing::Test {
 protected:
  static constexpr const char* kFqrn = "data.example.org";
  static constexpr const char* kConfigRepo = "config.example.net";

  std::string Local(const std::string& rel) const {
    return JoinPath(paths_.EtcCvmfs(), rel);
  }
  // The configuration repository's etc/cvmfs at the default mount
  // directory, and a file in it.
  std::string RepoEtc() const {
    return paths_.MountRoot() + "/" + kConfigRepo + "/etc/cvmfs";
  }
  std::string Repo(const std::string& rel) const {
    return RepoEtc() + "/" + rel;
  }
  void Write(const std::string& path, const std::string& text) {
    ASSERT_TRUE(MakeDirs(path.substr(0, path.rfind('/'))).ok());
    ASSERT_TRUE(WriteFileAtomic(path, text).ok());
  }
  void UseConfigRepository(const std::string& extra = "") {
    Write(Local("default.d/50-site.conf"),
          std::string("CVMFS_CONFIG_REPOSITORY=") + kConfigRepo + "\n" + extra);
  }
  Status Load(const std::string& fqrn = kFqrn) {
    return opts_.LoadForRepository(paths_, fqrn, &reach_);
  }
  std::string Value(const std::string& name) const {
    return opts_.Get(name).value_or("<unset>");
  }
  bool Warned(const std::string& part) const {
    for (const std::string& w : opts_.warnings())
      if (w.find(part) != std::string::npos) return true;
    return false;
  }

  testing::TempDir tmp_;
  SystemPaths paths_{tmp_.path()};
  OptionsManager opts_;
  RecordingReach reach_;
};

TEST_F(ConfigRepositoryLayerTest, RepositoryFilesSitBetweenTheLocalOnes) {
  UseConfigRepository();
  // Each file appends its name, so the final value spells the order.
  const std::vector<std::string> order = {
      Local("default.conf"),
      Local("default.d/50-site.conf"),
      Repo("default.conf"),
      Local("default.local"),
      Repo("domain.d/example.org.conf"),
      Local("domain.d/example.org.conf"),
      Local("domain.d/example.org.local"),
      Repo("config.d/data.example.org.conf"),
      Local("config.d/data.example.org.conf"),
      Local("config.d/data.example.org.local")};
  std::string expected;
  for (const std::string& f : order) {
    std::string text;
    if (f != Local("default.d/50-site.conf")) {
      ASSERT_TRUE(!PathExists(f)) << f;
    } else {
      text = *ReadFile(f);
    }
    Write(f, text + "ORDER=\"${ORDER} " + f + "\"\n");
    expected += " " + f;
  }
  // Not read: the repository's .local files, other domains, default.d.
  for (const char* rel :
       {"default.local", "domain.d/example.org.local", "default.d/10-x.conf",
        "config.d/data.example.org.local", "domain.d/example.com.conf"})
    Write(Repo(rel), "ORDER=wrong\n");
  // Only the repository sets this one: its source is the repository's file.
  Write(Repo("config.d/data.example.org.conf"),
        *ReadFile(Repo("config.d/data.example.org.conf")) +
            "CVMFS_SERVER_URL=http://s1/cvmfs/@fqrn@\n");

  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Value("ORDER"), expected);
  EXPECT_EQ(opts_.GetSource("ORDER"), Local("config.d/data.example.org.local"));
  EXPECT_EQ(Value("CVMFS_SERVER_URL"), "http://s1/cvmfs/@fqrn@");
  EXPECT_EQ(opts_.GetSource("CVMFS_SERVER_URL"),
            Repo("config.d/data.example.org.conf"));
  ASSERT_FALSE(reach_.dirs.empty());
  EXPECT_EQ(reach_.dirs.front(), RepoEtc());
  EXPECT_TRUE(opts_.warnings().empty());
}

TEST_F(ConfigRepositoryLayerTest, LocalFilesWinOverTheRepository) {
  UseConfigRepository();
  Write(Repo("default.conf"), "CVMFS_QUOTA_LIMIT=100\nCVMFS_A=repo\n");
  Write(Local("default.local"), "CVMFS_QUOTA_LIMIT=200\n");
  Write(Repo("domain.d/example.org.conf"), "CVMFS_SERVER_URL=http://repo\n");
  Write(Local("domain.d/example.org.conf"), "CVMFS_SERVER_URL=http://local\n");
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Value("CVMFS_QUOTA_LIMIT"), "200");
  EXPECT_EQ(Value("CVMFS_SERVER_URL"), "http://local");
  EXPECT_EQ(Value("CVMFS_A"), "repo");
}

TEST_F(ConfigRepositoryLayerTest, MountDirAndRepositoryNameReachTheFiles) {
  const std::string mount_dir = tmp_.Sub("mnt");
  UseConfigRepository("CVMFS_MOUNT_DIR=" + mount_dir + "/\n");
  const std::string etc = mount_dir + "/" + kConfigRepo + "/etc/cvmfs";
  Write(etc + "/domain.d/example.org.conf",
        "CVMFS_KEYS_DIR=$CVMFS_MOUNT_DIR/$CVMFS_CONFIG_REPOSITORY/etc/cvmfs/"
        "keys/example.org\n");
  Write(Repo("domain.d/example.org.conf"), "CVMFS_KEYS_DIR=wrong\n");
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Value("CVMFS_KEYS_DIR"),
            mount_dir + "//" + kConfigRepo + "/etc/cvmfs/keys/example.org");
  EXPECT_EQ(opts_.GetSource("CVMFS_KEYS_DIR"),
            etc + "/domain.d/example.org.conf");
  EXPECT_EQ(reach_.dirs.front(), etc);
}

TEST_F(ConfigRepositoryLayerTest, DefaultMountDirIsSeenByTheFiles) {
  UseConfigRepository();
  Write(Repo("default.conf"), "CVMFS_SEEN=$CVMFS_MOUNT_DIR\n");
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Value("CVMFS_SEEN"), paths_.MountRoot());
  EXPECT_FALSE(opts_.Get("CVMFS_MOUNT_DIR"));  // not an option of its own
}

TEST_F(ConfigRepositoryLayerTest, NameIsFixedAfterDefaultD) {
  UseConfigRepository();
  Write(Local("default.local"), "CVMFS_CONFIG_REPOSITORY=other.example.net\n");
  Write(Repo("default.conf"), "CVMFS_CONFIG_REPOSITORY=\n");
  Write(Repo("config.d/data.example.org.conf"), "CVMFS_B=from-repo\n");
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Value("CVMFS_CONFIG_REPOSITORY"), kConfigRepo);
  EXPECT_EQ(Value("CVMFS_B"), "from-repo");
  EXPECT_TRUE(Warned("attempt to change protected CVMFS_CONFIG_REPOSITORY"));
  EXPECT_TRUE(Warned(Local("default.local")));
  EXPECT_TRUE(Warned(Repo("default.conf")));

  // The same value again is no change: the later file becomes its source.
  OptionsManager again;
  Write(Local("default.local"),
        std::string("CVMFS_CONFIG_REPOSITORY=") + kConfigRepo + "\n");
  Write(Repo("default.conf"), "\n");
  ASSERT_TRUE(again.LoadForRepository(paths_, kFqrn).ok());
  EXPECT_EQ(again.GetSource("CVMFS_CONFIG_REPOSITORY"), Local("default.local"));
  for (const std::string& w : again.warnings())
    EXPECT_EQ(w.find("protected"), std::string::npos) << w;
}

TEST_F(ConfigRepositoryLayerTest, SetOnlyInDefaultLocalIsIgnored) {
  Write(Local("default.local"),
        std::string("CVMFS_CONFIG_REPOSITORY=") + kConfigRepo + "\n");
  Write(Repo("default.conf"), "CVMFS_A=wrong\n");
  ASSERT_TRUE(Load().ok());
  EXPECT_FALSE(opts_.Get("CVMFS_CONFIG_REPOSITORY"));
  EXPECT_FALSE(opts_.Get("CVMFS_A"));
  EXPECT_TRUE(reach_.dirs.empty());
  EXPECT_TRUE(Warned("from '' to '" + std::string(kConfigRepo) + "'"));
}

TEST_F(ConfigRepositoryLayerTest, NoLayerForTheConfigRepositoryItself) {
  UseConfigRepository();
  Write(Repo("default.conf"), "CVMFS_A=wrong\n");
  ASSERT_TRUE(Load(kConfigRepo).ok());
  EXPECT_FALSE(opts_.Get("CVMFS_A"));
  EXPECT_TRUE(reach_.dirs.empty());
}

TEST_F(ConfigRepositoryLayerTest, MissingRepositoryIsAWarning) {
  UseConfigRepository();
  Write(Local("config.d/data.example.org.conf"), "CVMFS_A=local\n");
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(Value("CVMFS_A"), "local");
  EXPECT_TRUE(Warned("configuration repository directory does not exist: " +
                     RepoEtc()));
}

TEST_F(ConfigRepositoryLayerTest, RequiredRepositoryMissingFails) {
  UseConfigRepository("CVMFS_CONFIG_REPO_REQUIRED=yes\n");
  Status s = Load();
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
  EXPECT_NE(
      s.message().find("required configuration repository directory does not "
                       "exist: " +
                       RepoEtc()),
      std::string::npos)
      << s.message();

  // As in CVMFS, each directory read is required: here domain.d/.
  Write(Repo("default.conf"), "CVMFS_A=1\n");
  OptionsManager no_domain;
  s = no_domain.LoadForRepository(paths_, kFqrn);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find(Repo("domain.d") + " "), std::string::npos)
      << s.message();

  // Present but without the files for this repository: fine.
  ASSERT_TRUE(MakeDirs(Repo("domain.d")).ok());
  ASSERT_TRUE(MakeDirs(Repo("config.d")).ok());
  OptionsManager present;
  EXPECT_TRUE(present.LoadForRepository(paths_, kFqrn).ok());
  EXPECT_EQ(present.Get("CVMFS_A"), "1");
}

TEST_F(ConfigRepositoryLayerTest, InvalidNameWarnsOrFailsWhenRequired) {
  Write(Local("default.conf"), "CVMFS_CONFIG_REPOSITORY='bad name'\n");
  ASSERT_TRUE(Load().ok());
  EXPECT_TRUE(Warned("invalid CVMFS_CONFIG_REPOSITORY: bad name"));
  EXPECT_TRUE(reach_.dirs.empty());

  Write(Local("default.d/r.conf"), "CVMFS_CONFIG_REPO_REQUIRED=on\n");
  OptionsManager required;
  Status s = required.LoadForRepository(paths_, kFqrn);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
}

TEST_F(ConfigRepositoryLayerTest, EmptyNameMeansNone) {
  Write(Local("default.conf"),
        "CVMFS_CONFIG_REPOSITORY=\nCVMFS_CONFIG_REPO_REQUIRED=yes\n");
  ASSERT_TRUE(Load().ok());
  EXPECT_TRUE(reach_.dirs.empty());
  EXPECT_TRUE(opts_.warnings().empty());
}

}  // namespace
}  // namespace cvmfs
