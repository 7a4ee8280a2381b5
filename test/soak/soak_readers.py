#!/usr/bin/env python3
"""The readers of the soak test (test/soak/run): N threads read whole files
of a mounted repository for a fixed time and check every byte.

Every file of the soak tree is self-verifying: its last 64 bytes are the
hex SHA-256 of the bytes before them (test/soak/run writes them that way),
so a reader knows the right content of whatever revision it opened without
asking the publisher. A file that vanished between listing and open (a
new revision removed it) is counted, not an error; any other error (EIO,
a short read) is counted as an error; a hash that does not match is a
WRONG read, and a read that takes longer than --hang-seconds is a hang.

Prints one JSON object with the totals on stdout; exits 0 (the caller
judges the numbers).
"""
import argparse
import errno
import hashlib
import json
import os
import random
import threading
import time

TRAILER = 64


class Totals:
    def __init__(self):
        self.lock = threading.Lock()
        self.reads = 0
        self.bytes = 0
        self.wrong = 0
        self.errors = 0
        self.vanished = 0
        self.error_kinds = {}
        self.wrong_paths = []
        self.max_read_seconds = 0.0

    def add(self, **kw):
        with self.lock:
            for key, value in kw.items():
                setattr(self, key, getattr(self, key) + value)


def list_files(root):
    found = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith(".bin"):
                found.append(os.path.join(dirpath, name))
    return found


def check_file(path):
    """Returns (bytes read, None) if right, or (bytes, reason)."""
    digest = hashlib.sha256()
    with open(path, "rb", buffering=0) as f:
        data = f.read()
        # Drops the file from the page cache, so that the next read of it
        # reaches the client again (its cache, or the network after an
        # eviction) instead of the kernel's copy.
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    if len(data) < TRAILER:
        return len(data), "short: %d bytes" % len(data)
    digest.update(memoryview(data)[:-TRAILER])
    if digest.hexdigest().encode() != data[-TRAILER:]:
        return len(data), "content does not match its SHA-256 trailer"
    return len(data), None


def reader(stop_at, files, totals, in_flight, index):
    rng = random.Random(index)
    while time.monotonic() < stop_at:
        with files["lock"]:
            path = rng.choice(files["list"])
        start = time.monotonic()
        in_flight[index] = (path, start)
        try:
            size, problem = check_file(path)
            elapsed = time.monotonic() - start
            with totals.lock:
                totals.max_read_seconds = max(totals.max_read_seconds, elapsed)
            if problem:
                totals.add(wrong=1, bytes=size)
                with totals.lock:
                    if len(totals.wrong_paths) < 20:
                        totals.wrong_paths.append("%s: %s" % (path, problem))
            else:
                totals.add(reads=1, bytes=size)
        except OSError as e:
            if e.errno == errno.ENOENT:
                totals.add(vanished=1)
            else:
                totals.add(errors=1)
                name = errno.errorcode.get(e.errno, str(e.errno))
                with totals.lock:
                    totals.error_kinds[name] = totals.error_kinds.get(name, 0) + 1
        in_flight[index] = None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--readers", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--hang-seconds", type=float, default=120)
    parser.add_argument("--relist-seconds", type=float, default=15)
    args = parser.parse_args()

    files = {"lock": threading.Lock(), "list": list_files(args.root)}
    if not files["list"]:
        raise SystemExit("no *.bin files below %s" % args.root)
    totals = Totals()
    in_flight = [None] * args.readers
    stop_at = time.monotonic() + args.seconds
    threads = [
        threading.Thread(target=reader, daemon=True,
                         args=(stop_at, files, totals, in_flight, i))
        for i in range(args.readers)
    ]
    for t in threads:
        t.start()
    # Relists the tree now and then (revisions add and remove files) and
    # watches for reads that do not come back.
    stuck = set()
    last_relist = time.monotonic()
    while any(t.is_alive() for t in threads):
        time.sleep(1)
        now = time.monotonic()
        for slot in in_flight:
            if slot and now - slot[1] > args.hang_seconds and slot not in stuck:
                stuck.add(slot)
        if now - last_relist >= args.relist_seconds:
            last_relist = now
            try:
                fresh = list_files(args.root)
                if fresh:
                    with files["lock"]:
                        files["list"] = fresh
            except OSError:
                pass
        if now > stop_at + 2 * args.hang_seconds:
            break  # threads still alive past the deadline: hung reads
    still_running = [t for t in threads if t.is_alive()]
    result = {
        "readers": args.readers,
        "seconds": args.seconds,
        "reads_ok": totals.reads,
        "bytes_read": totals.bytes,
        "wrong_reads": totals.wrong,
        "wrong_examples": totals.wrong_paths,
        "errors": totals.errors,
        "error_kinds": totals.error_kinds,
        "vanished": totals.vanished,
        "hangs": len(stuck),
        "readers_still_blocked": len(still_running),
        "max_read_seconds": round(totals.max_read_seconds, 2),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
