#include "cvmfs/credentials.h"

#include <grp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "cvmfs/file_util.h"

namespace cvmfs {

Result<UserIds> LookUpUser(const std::string& name) {
  if (name.empty()) return Status::InvalidArgument("empty user name");
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(size > 0 ? static_cast<size_t>(size) : 16384);
  struct passwd pw;
  struct passwd* found = nullptr;
  int rc;
  while ((rc = ::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(),
                            &found)) == ERANGE)
    buf.resize(buf.size() * 2);
  if (rc != 0) return Status::FromErrno(rc, "looking up user '" + name + "'");
  if (!found)
    return Status::NotFound("no user '" + name + "' in the passwd database");
  return UserIds{name, pw.pw_uid, pw.pw_gid};
}

namespace {

Status SetGroups(const UserIds& user) {
  if (::initgroups(user.name.c_str(), user.gid) != 0)
    return Status::FromErrno(
        errno, "setting the supplementary groups of " + user.name);
  return Status::Ok();
}

Status NoNewPrivileges() {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return Status::FromErrno(errno, "prctl(PR_SET_NO_NEW_PRIVS)");
  return Status::Ok();
}

// "Uid:\t0\t0\t0\t0" → the first three numbers.
template <typename T>
bool ParseIds(const std::string& rest, T* ids) {
  std::istringstream in(rest);
  for (int i = 0; i < 3; ++i) {
    uint64_t v;
    if (!(in >> v)) return false;
    ids[i] = static_cast<T>(v);
  }
  return true;
}

bool ParseHex(const std::string& rest, uint64_t* value) {
  char* end = nullptr;
  errno = 0;
  *value = std::strtoull(rest.c_str(), &end, 16);
  return errno == 0 && end != rest.c_str();
}

}  // namespace

Status AssumeUser(const UserIds& user) {
  if (::geteuid() != 0)
    return Status::Permission("switching to " + user.name + " needs root");
  CVMFS_RETURN_IF_ERROR(NoNewPrivileges());
  CVMFS_RETURN_IF_ERROR(SetGroups(user));
  if (::setresgid(-1, user.gid, -1) != 0)
    return Status::FromErrno(errno, "setresgid to " + user.name);
  if (::setresuid(-1, user.uid, -1) != 0)
    return Status::FromErrno(errno, "setresuid to " + user.name);
  return Status::Ok();
}

Status RegainRoot() {
  if (::geteuid() == 0) return Status::Ok();
  if (::setresuid(-1, 0, -1) != 0)
    return Status::FromErrno(errno, "regaining root");
  if (::setresgid(-1, 0, -1) != 0)
    return Status::FromErrno(errno, "regaining group root");
  return Status::Ok();
}

Status DropToUser(const UserIds& user) {
  uid_t r, e, s;
  ::getresuid(&r, &e, &s);
  // Setting groups and gids needs CAP_SETGID, effective only as root.
  if (e != 0 && (r == 0 || s == 0)) CVMFS_RETURN_IF_ERROR(RegainRoot());
  CVMFS_RETURN_IF_ERROR(NoNewPrivileges());
  CVMFS_RETURN_IF_ERROR(SetGroups(user));
  if (::setresgid(user.gid, user.gid, user.gid) != 0)
    return Status::FromErrno(errno, "setresgid to " + user.name);
  // The last step: every uid non-zero clears the permitted, effective and
  // ambient capabilities (unless SECBIT_KEEP_CAPS; checked below).
  if (::setresuid(user.uid, user.uid, user.uid) != 0)
    return Status::FromErrno(errno, "setresuid to " + user.name);
  CVMFS_ASSIGN_OR_RETURN(ProcessCredentials now, ReadCredentials());
  for (int i = 0; i < 3; ++i) {
    if (now.uid[i] != user.uid || now.gid[i] != user.gid)
      return Status::Permission("switching to " + user.name +
                                " left another uid or gid behind");
  }
  if (user.uid != 0 &&
      (now.cap_effective | now.cap_permitted | now.cap_ambient) != 0)
    return Status::Permission("capabilities left after switching to " +
                              user.name);
  if (!now.no_new_privs)
    return Status::Permission("no_new_privs not set after switching to " +
                              user.name);
  return Status::Ok();
}

Result<ProcessCredentials> ReadCredentials(pid_t pid) {
  const std::string path = pid == 0
                               ? std::string("/proc/thread-self/status")
                               : "/proc/" + std::to_string(pid) + "/status";
  CVMFS_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  ProcessCredentials c;
  int seen = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    const std::string rest = line.substr(colon + 1);
    bool ok = true;
    if (key == "Uid") {
      ok = ParseIds(rest, c.uid);
    } else if (key == "Gid") {
      ok = ParseIds(rest, c.gid);
    } else if (key == "CapEff") {
      ok = ParseHex(rest, &c.cap_effective);
    } else if (key == "CapPrm") {
      ok = ParseHex(rest, &c.cap_permitted);
    } else if (key == "CapAmb") {
      ok = ParseHex(rest, &c.cap_ambient);
    } else if (key == "NoNewPrivs") {
      c.no_new_privs = rest.find('1') != std::string::npos;
    } else {
      continue;
    }
    if (!ok)
      return Status::Corruption("cannot parse '" + line + "' in " + path);
    ++seen;
  }
  if (seen < 6)
    return Status::Corruption(path +
                              " lacks Uid, Gid, CapEff, CapPrm, "
                              "CapAmb or NoNewPrivs");
  return c;
}

}  // namespace cvmfs
