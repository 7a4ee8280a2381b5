#!/usr/bin/env python3
"""Prints a directory tree in the format of the fixtures' expected.tsv.

One entry per line, tab-separated, sorted by the path's bytes (C collation);
the root itself is not listed:

  path  type  perms  size  mtime  content  nlink  hardlink-group  xattrs

  path            relative to the root, raw bytes as the file system has them
  type            d (directory), f (regular file), l (symlink), p (fifo),
                  s (socket), c/b (devices)
  perms           permission bits (mode & 07777) in octal, e.g. 644, 4755
  size            st_size for files and symlinks, 0 for everything else
  mtime           st_mtime in whole seconds
  content         sha256 of a file's content, a symlink's target as readlink
                  shows it, "-" otherwise
  nlink           st_nlink
  hardlink-group  always "-" (the fixtures do not number groups)
  xattrs          the "user." extended attributes as name=hexvalue, sorted by
                  name and joined by commas, "-" if none. CVMFS's magic
                  attributes (the client's own, not stored in the catalog)
                  are left out.

Nothing follows symlinks. Usage: listing.py ROOT [> listing.tsv]
"""

import errno
import hashlib
import os
import stat
import sys

# The client's "magic" attributes (doc/client.md, "Extended attributes", plus
# our own user.prefetch); listxattr on a CVMFS mount may include them, catalogs
# never store them. (The kernel answers getxattr of user.* on a symlink with
# ENODATA whatever the file system says, so they cannot be read there.)
MAGIC_XATTRS = frozenset(
    "user." + name
    for name in (
        "authz catalog_counters chunk_list chunks compression direct_io expires "
        "external_file external_host external_timeout external_url fqrn hash "
        "host host_list hitrate inode_max lhash logbuffer maxfd ncleanup24 nclg "
        "ndiropen ndownload nioerr nopen pid prefetch proxy proxy_list "
        "proxy_list_external pubkeys rawlink repo_counters repo_metainfo "
        "revision root_hash rx speed tag timeout timeout_direct "
        "timestamp_last_ioerr uptime usedfd useddirp version"
    ).split()
)

TYPE_LETTERS = (
    (stat.S_ISDIR, "d"),
    (stat.S_ISREG, "f"),
    (stat.S_ISLNK, "l"),
    (stat.S_ISFIFO, "p"),
    (stat.S_ISSOCK, "s"),
    (stat.S_ISCHR, "c"),
    (stat.S_ISBLK, "b"),
)


def type_letter(mode):
    for predicate, letter in TYPE_LETTERS:
        if predicate(mode):
            return letter
    raise ValueError("unknown file type in mode %o" % mode)


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def user_xattrs(path):
    """The stored user.* attributes as 'name=hex,...', or '-'."""
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError as e:
        # Symlinks and special files may not support attributes at all.
        if e.errno in (errno.ENOTSUP, errno.EPERM):
            return "-"
        raise
    pairs = []
    for name in sorted(n for n in names if n.startswith("user.")):
        if name in MAGIC_XATTRS:
            continue
        value = os.getxattr(path, name, follow_symlinks=False)
        pairs.append("%s=%s" % (name, value.hex()))
    return ",".join(pairs) if pairs else "-"


def entry_line(root, rel):
    path = os.path.join(root, rel)
    st = os.lstat(path)
    kind = type_letter(st.st_mode)
    if kind == "f":
        size, content = st.st_size, sha256_of(path)
    elif kind == "l":
        size, content = st.st_size, os.fsdecode(os.readlink(path))
    else:
        size, content = 0, "-"
    fields = [
        os.fsdecode(rel),
        kind,
        "%o" % stat.S_IMODE(st.st_mode),
        str(size),
        str(int(st.st_mtime)),
        content,
        str(st.st_nlink),
        "-",
        user_xattrs(path),
    ]
    return os.fsencode("\t".join(fields))


def walk(root):
    """Relative paths (bytes) of everything below root, unsorted."""
    pending = [b""]
    while pending:
        rel = pending.pop()
        with os.scandir(os.path.join(root, rel) if rel else root) as it:
            for entry in it:
                child = os.path.join(rel, entry.name) if rel else entry.name
                yield child
                if entry.is_dir(follow_symlinks=False):
                    pending.append(child)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: listing.py ROOT\n")
        return 2
    root = os.fsencode(argv[1])
    if not os.path.isdir(root):
        sys.stderr.write("listing.py: %s is not a directory\n" % argv[1])
        return 2
    out = sys.stdout.buffer
    for rel in sorted(walk(root)):
        out.write(entry_line(root, rel) + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
