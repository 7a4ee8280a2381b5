#!/usr/bin/env bash
# The release manager's whole cycle on real mounts: mkfs (read-only layer
# by our client + overlayfs), transactions with additions, edits, deletions,
# renames of files and directories, type changes, metadata-only changes, a
# nested catalog from .cvmfscatalog and one from .cvmfsdirtab; publish,
# abort, tags, rollback; hooks; the refusals (a second transaction, a publish
# with a file open for writing, a rollback or a transaction at the wrong
# time). After each publish a separate client mount through Apache must show
# exactly what the union showed before the publish, and what an independent
# reference copy ($WORK/ref, changed by the same commands) holds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init txn_lifecycle 600
require_bins cvmfs_server cvmfs2
grep -qw overlay /proc/filesystems || skip "the kernel has no overlayfs"

fqrn=lifecycle.test.org
union=$CVMFS_ROOTDIR/cvmfs/$fqrn
spool=$CVMFS_ROOTDIR/var/spool/cvmfs/$fqrn
ref=$WORK/ref
hooks_log=$WORK/hooks.log
srv() { "$BIN/cvmfs_server" "$@"; }
on_exit "\"$BIN/cvmfs_server\" rmfs -f $fqrn >/dev/null 2>&1 || true"

# in_both CMD: runs CMD (a shell snippet, relative paths) in the union and
# in the reference copy.
in_both() {
  (cd "$union" && eval "$1") || fail "in the union: $1"
  (cd "$ref" && eval "$1") || fail "in the reference: $1"
}

# listing DIR: type, mode, size, mtime, content hash or target, xattrs; the
# link count of directories left out (overlayfs and CVMFS count differently).
listing() {
  python3 "$TESTLIB_DIR/listing.py" "$1" | awk -F'\t' -v OFS='\t' '$2 == "d" { $7 = "-" } { print }'
}
# Without mtimes: the reference copy was made at other times.
listing_no_time() { listing "$1" | awk -F'\t' -v OFS='\t' '{ $5 = "-"; if ($2 == "d") $4 = "-"; print }'; }
owners() { (cd "$1" && find . -mindepth 1 -printf '%P %U:%G\n' | LC_ALL=C sort); }

compare_trees() {  # WHAT EXPECTED_DIR ACTUAL_DIR [with-times]
  local what=$1 a=$2 b=$3 out
  out=$(diff -r --no-dereference "$a" "$b" 2>&1 |
    grep -vE '^File .* is a fifo while file .* is a fifo$' || true)
  [ -z "$out" ] || check_failed "$what: diff -r:"$'\n'"$out"
  if [ "${4:-}" = with-times ]; then
    diff <(listing "$a") <(listing "$b") >"$WORK/listing.diff" ||
      check_failed "$what: listings differ (< expected, > actual):"$'\n'"$(head -40 "$WORK/listing.diff")"
  else
    diff <(listing_no_time "$a") <(listing_no_time "$b") >"$WORK/listing.diff" ||
      check_failed "$what: listings differ (< expected, > actual):"$'\n'"$(head -40 "$WORK/listing.diff")"
  fi
  diff <(owners "$a") <(owners "$b") >"$WORK/owners.diff" ||
    check_failed "$what: owners differ:"$'\n'"$(head -20 "$WORK/owners.diff")"
}

mounts=0
# verify_published WHAT: a fresh client mount through Apache shows the union
# as it was before the publish ($WORK/union.before) and the reference copy.
verify_published() {
  local what=$1 mnt
  mounts=$((mounts + 1))
  mnt=$WORK/client-$mounts
  mount_repo $fqrn "$mnt" "$WORK/client.conf"
  expect_eq "$what: revision of the client mount" "$(manifest_field $fqrn S)" \
    "$(magic_xattr revision "$mnt")"
  compare_trees "$what: union before the publish vs client" "$WORK/union.before" "$mnt" with-times
  compare_trees "$what: reference vs client" "$ref" "$mnt"
  compare_trees "$what: union after the publish vs client" "$union" "$mnt" with-times
  unmount_repo "$mnt"
}

publish() {  # publish [OPTIONS]: snapshot of the union, then cvmfs_server publish
  rm -rf "$WORK/union.before"
  cp -a "$union" "$WORK/union.before"
  srv publish "$@" $fqrn >"$WORK/publish.out" 2>&1 || fail "publish failed: $(cat "$WORK/publish.out")"
  note "$(head -2 "$WORK/publish.out" | tr '\n' ' ')"
}

expect_refused() {  # WHAT EXPECTED_TEXT CMD...
  local what=$1 text=$2 out
  shift 2
  if out=$("$@" 2>&1); then
    check_failed "$what succeeded, but must be refused"
  elif [[ "$out" != *"$text"* ]]; then
    check_failed "$what: expected a message with '$text', got: $out"
  fi
}

in_transaction() { srv list | grep -q "^$fqrn .*in transaction"; }

mkdir -p "$CVMFS_ROOTDIR/etc/cvmfs"
cat >"$CVMFS_ROOTDIR/etc/cvmfs/cvmfs_server_hooks.sh" <<HOOKS
for h in transaction publish abort; do
  for w in before after; do
    eval "\${h}_\${w}_hook() { echo \"\${h}_\${w} \\\$1\" >> '$hooks_log'; }"
  done
done
transaction_before_hook() {
  [ ! -e '$WORK/veto' ] || { echo "vetoed by the hook" >&2; return 1; }
  echo "transaction_before \$1" >> '$hooks_log'
}
HOOKS

note "mkfs"
srv mkfs $fqrn >"$WORK/mkfs.out" 2>&1 || fail "mkfs: $(cat "$WORK/mkfs.out")"
mountpoint -q "$spool/rdonly" || fail "mkfs did not mount the read-only layer"
findmnt -n -o FSTYPE,OPTIONS "$union" | grep -q '^overlay *ro,' ||
  fail "mkfs did not mount the union read-only: $(findmnt -n "$union")"
expect_eq "list after mkfs" "$fqrn (stratum0 / local)" "$(srv list)"
mkdir -p "$ref"
apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"
if touch "$union/x" 2>/dev/null; then fail "the union is writable outside a transaction"; fi

note "transaction 1: additions, a nested catalog, tag v1"
srv transaction $fqrn >/dev/null
in_transaction || fail "list does not show the transaction"
expect_refused "a second transaction" "already open" srv transaction $fqrn
expect_refused "rollback during a transaction" "transaction is open" srv rollback -t trunk $fqrn
in_both 'mkdir -p dir/sub empty-dir nested/inner move-me/deep && echo hello > dir/hello.txt'
in_both 'for i in $(seq 1 30); do echo "file $i" > dir/sub/f$i; done'
make_random_file "$union/big.bin" $((9 * 1024 * 1024)) lifecycle-big
cp "$union/big.bin" "$ref/big.bin"
in_both 'ln -s dir/hello.txt link-to-file && ln -s dir link-to-dir && ln -s /nonexistent dangling'
in_both 'mkfifo fifo && echo secret > private && chmod 600 private && chmod 700 dir/sub'
in_both 'echo owned > owned && chown 1234:5678 owned && setfattr -n user.foo -v bar dir/hello.txt'
in_both ': > nested/.cvmfscatalog && echo in-nested > nested/inner/n.txt'
in_both 'echo deep > move-me/deep/d.txt && echo m > move-me/m.txt && echo type > file-to-dir'
in_both 'mkdir dir-to-link && echo x > dir-to-link/x && ln -s dir link-to-file2'
in_both 'touch -d @1600000000 dir/sub/f1'
publish -a v1 -m "first"
in_transaction && check_failed "still in a transaction after publish"
verify_published "transaction 1"
srv list-catalogs -x $fqrn | grep -q '^/nested$' || check_failed "no nested catalog at /nested"
cp -a "$ref" "$WORK/ref-v1"

note "transaction 2: edits, deletions, renames, type changes, metadata, dirtab"
srv transaction $fqrn >/dev/null
in_both 'echo changed > dir/hello.txt && echo appended >> dir/sub/f2'
in_both 'rm dir/sub/f3 && rm -r empty-dir && rm link-to-dir'
in_both 'mv dir/sub/f4 dir/f4-renamed && mv move-me moved'       # a directory rename
in_both 'rm file-to-dir && mkdir file-to-dir && echo now-a-dir > file-to-dir/inside'
in_both 'rm -r dir-to-link && ln -s dir dir-to-link'              # directory -> symlink
in_both 'rm link-to-file2 && echo now-a-file > link-to-file2'     # symlink -> file
in_both 'rm -r nested/inner && mkdir nested/inner && echo fresh > nested/inner/new.txt'  # opaque
in_both 'chmod 640 dir/sub/f5 && chown 42:43 dir/sub/f6 && touch -d @1500000000 dir/sub/f7'
in_both 'printf "/sw/*\n" > .cvmfsdirtab && mkdir -p sw/pkg1 sw/pkg2 && echo 1 > sw/pkg1/a && echo 2 > sw/pkg2/b'
publish -v
# -v (CVMFS: verbose) lists the change set.
grep -q '^  /dir/sub/f3 remove file$' "$WORK/publish.out" || check_failed "publish -v: no change set: $(cat "$WORK/publish.out")"
# The dirtab created the markers (as CVMFS does in the union).
for p in pkg1 pkg2; do
  [ -f "$union/sw/$p/.cvmfscatalog" ] || check_failed "the dirtab made no marker in sw/$p"
  : >"$ref/sw/$p/.cvmfscatalog"
  cp -a "$union/sw/$p/.cvmfscatalog" "$WORK/union.before/sw/$p/.cvmfscatalog"
  touch -r "$union/sw/$p" "$WORK/union.before/sw/$p"
done
verify_published "transaction 2"
catalogs=$(srv list-catalogs -x $fqrn)
for c in /nested /sw/pkg1 /sw/pkg2; do
  grep -q "^ *$c\$" <<<"$catalogs" || check_failed "no nested catalog at $c: $catalogs"
done

note "transaction 3: abort"
rev=$(manifest_field $fqrn S)
srv transaction $fqrn >/dev/null
echo junk > "$union/junk" && rm -r "$union/dir"
expect_refused "abort without confirmation" "not confirmed" srv abort $fqrn </dev/null
srv abort -f $fqrn >/dev/null || fail "abort -f"
expect_eq "revision after abort" "$rev" "$(manifest_field $fqrn S)"
in_transaction && check_failed "still in a transaction after abort"
compare_trees "union after abort vs reference" "$ref" "$union"
[ -z "$(ls -A "$spool/scratch/current")" ] || check_failed "scratch not empty after abort"
expect_refused "abort without a transaction" "no transaction is open" srv abort -f $fqrn
expect_refused "publish without a transaction" "no transaction is open" srv publish $fqrn

note "transaction 4: a file open for writing blocks the publish"
srv transaction $fqrn >/dev/null
in_both 'echo 4 > four.txt'
exec 9>"$union/held-open.txt"
expect_refused "publish with a file open for writing" "held-open.txt open for writing" \
  srv publish $fqrn
in_transaction || check_failed "the refused publish closed the transaction"
echo "written while the publish was refused" >&9
exec 9>&-
cp "$union/held-open.txt" "$ref/held-open.txt"
publish
verify_published "transaction 4"

note "tags and rollback"
srv tag -l $fqrn | grep -q '^v1 ' || check_failed "tag v1 missing: $(srv tag -l $fqrn)"
srv tag -i v1 $fqrn | grep -q 'Description:  first' || check_failed "tag -i v1: $(srv tag -i v1 $fqrn)"
srv rollback -f -t v1 $fqrn >/dev/null || fail "rollback -t v1"
rm -rf "$ref" && cp -a "$WORK/ref-v1" "$ref"
rm -rf "$WORK/union.before" && cp -a "$union" "$WORK/union.before"
verify_published "rollback to v1"
compare_trees "union after rollback vs v1" "$WORK/ref-v1" "$union"

note "hooks; a failing before-hook stops the transaction"
expected_hooks="transaction_before transaction_after publish_before publish_after"
for h in $expected_hooks abort_before abort_after; do
  grep -q "^$h $fqrn\$" "$hooks_log" || check_failed "hook $h did not run: $(cat "$hooks_log")"
done
touch "$WORK/veto"
expect_refused "transaction vetoed by its hook" "transaction_before_hook" srv transaction $fqrn
in_transaction && check_failed "a vetoed transaction is open"
rm "$WORK/veto"

note "missing mounts: refused, then repaired by cvmfs_server mount"
umount "$union" && umount "$spool/rdonly"
expect_eq "list with missing mounts" "$fqrn (stratum0 / local - mounts missing)" "$(srv list)"
expect_refused "transaction without mounts" "cvmfs_server mount" srv transaction $fqrn
srv mount -a >/dev/null || fail "mount -a"
srv transaction $fqrn >/dev/null || fail "transaction after mount -a"
in_both 'echo after-remount > remount.txt'
publish
verify_published "after remounting"

srv check -i $fqrn >"$WORK/check.out" 2>&1 || check_failed "check -i: $(tail -5 "$WORK/check.out")"
srv rmfs -f $fqrn >/dev/null || fail "rmfs -f"
if mountpoint -q "$spool/rdonly" 2>/dev/null || mountpoint -q "$union" 2>/dev/null; then
  check_failed "rmfs left mounts behind"
fi
finish
