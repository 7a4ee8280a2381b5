// mount.cvmfs: the helper mount(8) runs for `mount -t cvmfs FQRN DIR`.
//
//   mount.cvmfs FQRN MOUNTPOINT [-o OPTIONS] [-n] [-v] ...
//
// Checks the repository name and the mount point and runs cvmfs2 (from the
// same directory as this program, else from PATH) with the options, as
// CVMFS's /sbin/mount.cvmfs does.
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <iostream>
#include <string>
#include <vector>

namespace {

bool ValidFqrn(const std::string& fqrn) {
  if (fqrn.empty() || !std::isalnum(static_cast<unsigned char>(fqrn[0])) ||
      fqrn.find('.') == std::string::npos)
    return false;
  for (char c : fqrn)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' &&
        c != '_')
      return false;
  return true;
}

std::string SiblingProgram(const char* argv0, const std::string& name) {
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) {
    std::string dir(self, static_cast<size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;  // found through PATH by execvp
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> positional;
  std::string options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc) {
      options = argv[++i];
    } else if (a == "-n" || a == "-v" || a == "-f" || a == "-s") {
      // no mtab, verbose, fake, sloppy: nothing to do
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "mount.cvmfs: unknown option " << a << "\n";
      return 1;
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) {
    std::cerr << "Usage: mount.cvmfs FQRN MOUNTPOINT [-o OPTIONS]\n";
    return 1;
  }
  std::string fqrn = positional[0];
  // fstab entries may name the device "cvmfs2" and the repository in the path.
  if (!fqrn.empty() && fqrn[0] == ':') fqrn = fqrn.substr(1);
  if (!ValidFqrn(fqrn)) {
    std::cerr << "mount.cvmfs: '" << fqrn << "' is not a repository name\n";
    return 1;
  }
  struct stat st;
  if (::stat(positional[1].c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::cerr << "mount.cvmfs: mount point " << positional[1]
              << " is not a directory\n";
    return 1;
  }
  std::string program = SiblingProgram(argv[0], "cvmfs2");
  std::string all_options =
      "system_mount" + (options.empty() ? "" : "," + options);
  std::vector<const char*> args = {program.c_str(),       "-o",
                                   all_options.c_str(),   fqrn.c_str(),
                                   positional[1].c_str(), nullptr};
  ::execvp(program.c_str(), const_cast<char* const*>(args.data()));
  std::cerr << "mount.cvmfs: cannot run " << program << "\n";
  return 1;
}
