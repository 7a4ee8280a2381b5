#!/usr/bin/env python3
"""Compares two listings in listing.py's format, entry by entry.

Usage: compare_listings.py [--ignore FIELD]... [--max N] EXPECTED ACTUAL

Prints one line per difference, naming the path and the field:
  missing: PATH                          (only in EXPECTED)
  unexpected: PATH                       (only in ACTUAL)
  PATH: FIELD expected 'A', got 'B'
then a summary per field. Exit status 0 if equal, 1 if not, 2 on bad input.
--ignore leaves a field out (e.g. --ignore nlink); --max caps the detail
lines (default 40; the summary always counts everything).
"""

import argparse
import collections
import sys

FIELDS = ("type", "perms", "size", "mtime", "content", "nlink", "hardlink", "xattrs")


def load(path):
    entries = {}
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            cols = line.rstrip(b"\n").split(b"\t")
            if len(cols) != 1 + len(FIELDS):
                sys.exit("%s:%d: expected %d tab-separated fields, got %d"
                         % (path, number, 1 + len(FIELDS), len(cols)))
            entries[cols[0]] = cols[1:]
    return entries


def show(value):
    return value.decode("utf-8", "backslashreplace")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ignore", action="append", default=[], choices=FIELDS)
    parser.add_argument("--max", type=int, default=40)
    parser.add_argument("expected")
    parser.add_argument("actual")
    args = parser.parse_args()
    expected, actual = load(args.expected), load(args.actual)

    lines, counts = [], collections.Counter()
    for path in sorted(set(expected) | set(actual)):
        if path not in actual:
            counts["missing"] += 1
            lines.append("missing: %s" % show(path))
            continue
        if path not in expected:
            counts["unexpected"] += 1
            lines.append("unexpected: %s" % show(path))
            continue
        for name, want, got in zip(FIELDS, expected[path], actual[path]):
            if name in args.ignore or want == got:
                continue
            counts[name] += 1
            lines.append("%s: %s expected '%s', got '%s'"
                         % (show(path), name, show(want), show(got)))
    if not lines:
        return 0
    for line in lines[: args.max]:
        print(line)
    if len(lines) > args.max:
        print("... %d more differences" % (len(lines) - args.max))
    print("differences: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    return 1


if __name__ == "__main__":
    sys.exit(main())
