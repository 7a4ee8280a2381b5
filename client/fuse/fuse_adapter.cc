#define FUSE_USE_VERSION 312
#include "client/fuse/fuse_adapter.h"

#include <fuse_lowlevel.h>
#include <poll.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "client/open_file.h"

namespace cvmfs::client {

namespace {

// The session's userdata.
struct Session {
  FileSystem* fs;
  // The kernel opens files and directories without asking us (negotiated
  // in init: answering ENOSYS to the first open/opendir turns them off).
  bool no_open = false;
  bool no_opendir = false;
  bool default_permissions = false;  // the kernel checks modes
  bool enforce_acls = false;         // the kernel checks POSIX ACLs too
};

Session* State(fuse_req_t req) {
  return static_cast<Session*>(fuse_req_userdata(req));
}
FileSystem* Fs(fuse_req_t req) { return State(req)->fs; }

double Timeout(fuse_req_t req) { return Fs(req)->options().kcache_timeout; }

struct DirHandle {
  std::vector<DirEntry> entries;
};

void OpInit(void* userdata, fuse_conn_info* conn) {
  auto* session = static_cast<Session*>(userdata);
  // Without open/release round trips an open(2) of a file whose pages are
  // cached never reaches us: reads by inode (FileSystem::ReadInode). The
  // kernel then keeps file pages and directory listings across opens.
  if (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) session->no_open = true;
  if (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) session->no_opendir = true;
  if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
    conn->want |= FUSE_CAP_CACHE_SYMLINKS;
  // CVMFS_ENFORCE_ACLS: the kernel reads each inode's ACL once (caching
  // it, "none" included) and checks it along with the mode bits. Without
  // it ACLs stored in catalogs are plain extended attributes, as in CVMFS.
  if (session->enforce_acls && session->default_permissions &&
      (conn->capable & FUSE_CAP_POSIX_ACL))
    conn->want |= FUSE_CAP_POSIX_ACL;
  if (conn->capable & FUSE_CAP_READDIRPLUS) conn->want |= FUSE_CAP_READDIRPLUS;
  // Always readdirplus: listing replies carry attributes, so `ls -l` and
  // `find` need no lookup per entry.
  conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
  // An inode's content never changes: attribute refreshes must not make
  // the kernel drop its cached pages.
  conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
  if (conn->capable & FUSE_CAP_ASYNC_READ) conn->want |= FUSE_CAP_ASYNC_READ;
}

void OpLookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  auto r = Fs(req)->Lookup(parent, name);
  fuse_entry_param e{};
  e.attr_timeout = e.entry_timeout = Timeout(req);
  if (!r.ok()) {
    if (r.status().code() != Status::Code::kNotFound) {
      fuse_reply_err(req, r.status().ToErrno());
      return;
    }
    e.ino = 0;  // a negative entry the kernel may cache
    fuse_reply_entry(req, &e);
    return;
  }
  e.ino = r->inode;
  e.attr = r->attr;
  e.generation = 1;
  fuse_reply_entry(req, &e);
}

void OpForget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
  Fs(req)->Forget(ino, nlookup);
  fuse_reply_none(req);
}

void OpForgetMulti(fuse_req_t req, size_t count, fuse_forget_data* forgets) {
  for (size_t i = 0; i < count; ++i)
    Fs(req)->Forget(forgets[i].ino, forgets[i].nlookup);
  fuse_reply_none(req);
}

void OpGetattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  auto r = Fs(req)->GetAttr(ino);
  if (!r.ok()) {
    fuse_reply_err(req, r.status().ToErrno());
    return;
  }
  fuse_reply_attr(req, &*r, Timeout(req));
}

void OpReadlink(fuse_req_t req, fuse_ino_t ino) {
  auto r = Fs(req)->ReadLink(ino);
  if (!r.ok()) {
    fuse_reply_err(req, r.status().ToErrno());
    return;
  }
  fuse_reply_readlink(req, r->c_str());
}

void OpOpen(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if ((fi->flags & O_ACCMODE) != O_RDONLY) {
    fuse_reply_err(req, EROFS);
    return;
  }
  if (State(req)->no_open) {
    fuse_reply_err(req, ENOSYS);  // from now on the kernel opens by itself
    return;
  }
  bool keep_cache = false;
  auto r = Fs(req)->Open(ino, &keep_cache);
  if (!r.ok()) {
    fuse_reply_err(req, r.status().ToErrno());
    return;
  }
  fi->fh = reinterpret_cast<uint64_t>(*r);
  fi->keep_cache = keep_cache;
  if (fuse_reply_open(req, fi) != 0) Fs(req)->Release(*r);  // interrupted
}

void OpRead(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
            fuse_file_info* fi) {
  auto* file = reinterpret_cast<OpenFile*>(fi->fh);
  std::unique_ptr<char[]> buf(new char[size]);
  auto r = file ? Fs(req)->Read(file, buf.get(), size, off)
                : Fs(req)->ReadInode(ino, buf.get(), size, off);
  if (!r.ok()) {
    const int err = r.status().ToErrno();
    fuse_reply_err(req, err == ENOENT ? EIO : err);
    return;
  }
  fuse_reply_buf(req, buf.get(), *r);
}

void OpRelease(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  if (fi->fh != 0) Fs(req)->Release(reinterpret_cast<OpenFile*>(fi->fh));
  fuse_reply_err(req, 0);
}

void OpOpendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (State(req)->no_opendir) {
    fuse_reply_err(req, ENOSYS);  // listings by inode from now on
    return;
  }
  auto r = Fs(req)->ReadDir(ino);
  if (!r.ok()) {
    fuse_reply_err(req, r.status().ToErrno());
    return;
  }
  auto* handle = new DirHandle{std::move(r).value()};
  fi->fh = reinterpret_cast<uint64_t>(handle);
  // A directory's listing never changes within a revision: the kernel may
  // keep it across opendir calls.
  fi->cache_readdir = 1;
  fi->keep_cache = 1;
  Fs(req)->DirOpened();
  if (fuse_reply_open(req, fi) != 0) {
    delete handle;
    Fs(req)->DirClosed();
  }
}

void ReadDirCommon(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                   fuse_file_info* fi, bool plus) {
  std::shared_ptr<const std::vector<DirEntry>> listing;
  const std::vector<DirEntry>* entries;
  if (fi->fh != 0) {
    entries = &reinterpret_cast<DirHandle*>(fi->fh)->entries;
  } else {
    auto r = Fs(req)->ListingFor(ino);
    if (!r.ok()) {
      fuse_reply_err(req, r.status().ToErrno());
      return;
    }
    listing = std::move(r).value();
    entries = listing.get();
  }
  std::unique_ptr<char[]> buf(new char[size]);
  size_t used = 0;
  const double timeout = Timeout(req);
  for (size_t i = static_cast<size_t>(off); i < entries->size(); ++i) {
    const DirEntry& d = (*entries)[i];
    size_t n;
    if (plus) {
      fuse_entry_param e{};
      e.ino = d.inode;
      e.attr = d.attr;
      e.generation = 1;
      e.attr_timeout = e.entry_timeout = timeout;
      n = fuse_add_direntry_plus(req, buf.get() + used, size - used,
                                 d.name.c_str(), &e, static_cast<off_t>(i + 1));
    } else {
      n = fuse_add_direntry(req, buf.get() + used, size - used, d.name.c_str(),
                            &d.attr, static_cast<off_t>(i + 1));
    }
    if (n > size - used) break;
    used += n;
    // readdirplus entries count as lookups (except "." and "..").
    if (plus && d.info) Fs(req)->RememberListed(d);
  }
  fuse_reply_buf(req, buf.get(), used);
}

void OpReaddir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
               fuse_file_info* fi) {
  ReadDirCommon(req, ino, size, off, fi, false);
}

void OpReaddirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                   fuse_file_info* fi) {
  ReadDirCommon(req, ino, size, off, fi, true);
}

void OpReleasedir(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  if (fi->fh == 0) {
    fuse_reply_err(req, 0);
    return;
  }
  delete reinterpret_cast<DirHandle*>(fi->fh);
  Fs(req)->DirClosed();
  fuse_reply_err(req, 0);
}

void OpStatfs(fuse_req_t req, fuse_ino_t) {
  auto r = Fs(req)->StatFs();
  if (!r.ok()) {
    fuse_reply_err(req, r.status().ToErrno());
    return;
  }
  fuse_reply_statfs(req, &*r);
}

void ReplyXattr(fuse_req_t req, const std::string& value, size_t size) {
  if (size == 0) {
    fuse_reply_xattr(req, value.size());
  } else if (size < value.size()) {
    fuse_reply_err(req, ERANGE);
  } else {
    fuse_reply_buf(req, value.data(), value.size());
  }
}

// The errno for an attribute the entry does not have. `ls -l` asks every
// file for its SELinux label (security.selinux) and ACLs
// (system.posix_acl_*); the kernel caches neither answer (ACLs only when
// it enforces them), so each is a round trip to us. When no entry of the
// revision has any extended attribute, the repository supports neither:
// "not supported" (as NFS answers) makes ls and libselinux stop asking for
// the rest of the file system, while "no such attribute" would have them
// ask again for every file.
int MissingXattrErrno(fuse_req_t req, const char* name) {
  const bool label = std::strncmp(name, "security.", 9) == 0;
  const bool acl = std::strncmp(name, "system.posix_acl_", 17) == 0;
  // An enforcing kernel must be told "no ACL" (it caches that), not an
  // error it would pass on to permission checks.
  if (acl && State(req)->enforce_acls) return ENODATA;
  if ((label || acl) && !Fs(req)->RevisionHasXattrs()) return EOPNOTSUPP;
  return ENODATA;
}

void OpGetxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  auto r = Fs(req)->GetXattr(ino, name, fuse_req_ctx(req)->gid);
  if (!r.ok()) {
    fuse_reply_err(req, r.status().code() == Status::Code::kNotFound
                            ? MissingXattrErrno(req, name)
                            : r.status().ToErrno());
    return;
  }
  ReplyXattr(req, *r, size);
}

void OpListxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  auto r = Fs(req)->ListXattr(ino);
  if (!r.ok()) {
    fuse_reply_err(req, r.status().ToErrno());
    return;
  }
  std::string list;
  for (const std::string& n : *r) list.append(n).push_back('\0');
  ReplyXattr(req, list, size);
}

fuse_lowlevel_ops MakeOps() {
  fuse_lowlevel_ops ops{};
  ops.init = OpInit;
  ops.lookup = OpLookup;
  ops.forget = OpForget;
  ops.forget_multi = OpForgetMulti;
  ops.getattr = OpGetattr;
  ops.readlink = OpReadlink;
  ops.open = OpOpen;
  ops.read = OpRead;
  ops.release = OpRelease;
  ops.opendir = OpOpendir;
  ops.readdir = OpReaddir;
  ops.readdirplus = OpReaddirplus;
  ops.releasedir = OpReleasedir;
  ops.statfs = OpStatfs;
  ops.getxattr = OpGetxattr;
  ops.listxattr = OpListxattr;
  return ops;
}

struct SessionDeleter {
  void operator()(fuse_session* se) const { fuse_session_destroy(se); }
};

// Whether the session's mount is still there: an unmounted FUSE device
// polls POLLERR (as libfuse's own unmount checks).
bool StillMounted(fuse_session* se) {
  pollfd p{fuse_session_fd(se), 0, 0};
  return !(::poll(&p, 1, 0) == 1 && (p.revents & POLLERR));
}

}  // namespace

Status RunFuseSession(FileSystem* fs, const FuseOptions& options) {
  std::vector<std::string> argv_storage{"cvmfs2"};
  if (options.debug) argv_storage.push_back("-d");
  std::string opts;
  for (const std::string& o : options.mount_options)
    opts += (opts.empty() ? "" : ",") + o;
  if (!opts.empty()) {
    argv_storage.push_back("-o");
    argv_storage.push_back(opts);
  }
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());

  const fuse_lowlevel_ops ops = MakeOps();
  Session state{fs};
  for (const std::string& o : options.mount_options)
    if (o == "default_permissions") state.default_permissions = true;
  state.enforce_acls = options.enforce_acls;
  std::unique_ptr<fuse_session, SessionDeleter> se(
      fuse_session_new(&args, &ops, sizeof(ops), &state));
  fuse_opt_free_args(&args);
  if (!se) {
    Status st = Status::InvalidArgument(
        "cannot create the FUSE session (bad mount options: " + opts + ")");
    if (options.on_mounted) options.on_mounted(st);
    return st;
  }
  if (fuse_set_signal_handlers(se.get()) != 0) {
    Status st = Status::IoError("cannot install signal handlers");
    if (options.on_mounted) options.on_mounted(st);
    return st;
  }
  if (fuse_session_mount(se.get(), options.mountpoint.c_str()) != 0) {
    fuse_remove_signal_handlers(se.get());
    Status st = Status::IoError(
        "cannot mount on " + options.mountpoint +
        " (does it exist, is /dev/fuse usable, is it mounted already?)");
    if (options.on_mounted) options.on_mounted(st);
    return st;
  }
  if (options.after_mount) {
    Status st = options.after_mount();
    if (!st.ok()) {
      fuse_session_unmount(se.get());
      fuse_remove_signal_handlers(se.get());
      if (options.on_mounted) options.on_mounted(st);
      return st;
    }
  }
  fuse_session* session = se.get();
  fs->set_invalidator([session](uint64_t parent, const std::string& name) {
    // -ENOENT (the kernel has no such entry any more) is fine.
    if (name.empty()) {
      (void)fuse_lowlevel_notify_inval_inode(session, parent, 0, 0);
    } else {
      (void)fuse_lowlevel_notify_inval_entry(session, parent, name.c_str(),
                                             name.size());
    }
  });
  if (options.on_mounted) options.on_mounted(Status::Ok());
  fuse_loop_config* config = fuse_loop_cfg_create();
  fuse_loop_cfg_set_idle_threads(
      config, static_cast<unsigned>(options.max_idle_threads));
  fuse_loop_cfg_set_max_threads(config,
                                static_cast<unsigned>(options.max_threads));
  int rc = fuse_session_loop_mt(se.get(), config);
  fuse_loop_cfg_destroy(config);
  if (options.on_stopping) options.on_stopping();
  fs->set_invalidator(nullptr);
  if (!options.root_unmounts) {
    fuse_session_unmount(se.get());
  } else if (StillMounted(se.get()) && options.on_left_mounted) {
    options.on_left_mounted();
  }  // the session's destruction closes /dev/fuse: the kernel aborts it
  fuse_remove_signal_handlers(se.get());
  if (rc < 0)
    return Status::IoError(std::string("FUSE session ended: ") +
                           std::strerror(-rc));
  return Status::Ok();
}

}  // namespace cvmfs::client
