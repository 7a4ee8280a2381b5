#!/usr/bin/env bash
# cvmfs_server's options with CVMFS 2.12's meanings (doc/cvmfs_server-options.md):
# hostile repository names against every subcommand that takes one (nothing
# outside the tree touched), tag (-a refuses an existing name unless moved
# with -h, the revision's own timestamp, -r asks, -x, -b refused), rollback
# asks, unique automatic tags and CVMFS_AUTO_TAG_TIMESPAN, list-catalogs
# -s/-e/-h/-x, rmfs -p, transaction -t, publish -a/-v and the refused
# options, resign -p/-d/-f/-w, ingest -d alone/-k/-u.
# Needs neither root nor FUSE: no transaction mounts (test/transaction/).
export CVMFS_SERVER_NO_MOUNT=1
set -euo pipefail
bin=${CVMFS_BIN_DIR:?}
work=$(mktemp -d /tmp/cvmfs-options-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CVMFS_ROOTDIR=$work/root
fail() { echo "FAIL: options_test: $*" >&2; exit 1; }
srv() { "$bin/cvmfs_server" "$@"; }
manifest_field() { sed -n "/^--\$/q;s/^$2//p" "$CVMFS_ROOTDIR/srv/cvmfs/$1/.cvmfspublished" | head -1; }
expect_fail() {  # WHAT TEXT CMD... : CMD fails with TEXT in its output
  local what=$1 text=$2 out
  shift 2
  if out=$("$@" 2>&1 </dev/null); then fail "$what succeeded: $out"; fi
  [[ "$out" == *"$text"* ]] || fail "$what: expected '$text' in: $out"
}
fqrn=opts.test.org
mkdir -p "$work/src/a/nested"
echo hello > "$work/src/a/hello.txt"
: > "$work/src/a/nested/.cvmfscatalog"
echo x > "$work/src/a/nested/x"
tar -C "$work/src" -cf "$work/t.tar" .
srv mkfs $fqrn >/dev/null 2>&1
srv ingest -t "$work/t.tar" -b sw $fqrn >/dev/null

# --- Hostile names: a planted server.conf outside the tree, pointing at a
# victim directory, must be neither read nor acted on by any subcommand.
mkdir -p "$work/W" "$work/victim/data" "$work/victim/keep"
echo precious > "$work/victim/keep/file"
cat > "$work/W/server.conf" <<EOF
CVMFS_REPOSITORY_NAME=W
CVMFS_REPOSITORY_TYPE=stratum0
CVMFS_SPOOL_DIR=$work/victim/keep
CVMFS_UPSTREAM_STORAGE=local,$work/victim/tmp,$work/victim
EOF
cp -r "$work/W" "$work/root/W"
before=$(cd "$work" && find W victim root/W | sort; cat victim/keep/file)
for name in ../../../../W ../../../W ../W.org a.org/../../W .. ../.. /tmp/x.org x.org/ a..b.org; do
  for cmd in "rmfs -f" "rmfs -p -f" tag "tag -a x" "tag -r x -f" "tag -l" rollback "rollback -f" \
             list-catalogs diff "diff -m" transaction publish "abort -f" mount resign "resign -p" \
             "ingest -d x" "ingest -t $work/t.tar -b y" info check "gc -f" serve; do
    # shellcheck disable=SC2086
    if out=$(srv $cmd "$name" 2>&1 </dev/null); then fail "$cmd '$name' succeeded: $out"; fi
    [[ "$out" == *"not a valid repository name"* ]] || fail "$cmd '$name': unclear refusal: $out"
  done
done
after=$(cd "$work" && find W victim root/W | sort; cat victim/keep/file)
[ "$before" = "$after" ] || fail "a hostile name touched files outside the tree"

# --- tag
rev2_ts=$(srv tag -i trunk -x $fqrn | cut -d' ' -f5)
sleep 1.1
srv tag -a v1 -m "first release" $fqrn >/dev/null
line=$(srv tag -i v1 -x $fqrn)
[ "$(echo "$line" | wc -w)" -ge 7 ] || fail "tag -i -x fields: $line"
set -- $line
[ "$1 $4 $6" = "v1 2 (default)" ] || fail "tag -i -x: $line"
[ "$5" = "$rev2_ts" ] || fail "tag timestamp $5 is not the revision's $rev2_ts"
echo "$line" | grep -q ' first release$' || fail "tag -x description: $line"
srv tag -l -x $fqrn | grep -q "^v1 $2 " || fail "tag -l -x: $(srv tag -l -x $fqrn)"
srv ingest -t "$work/t.tar" -b sw2 $fqrn >/dev/null
expect_fail "tag -a on an existing name" "already exists; move it with -h" srv tag -a v1 $fqrn
[ "$(srv tag -i v1 -x $fqrn | cut -d' ' -f4)" = 2 ] || fail "refused tag -a moved the tag"
new_root=$(srv tag -i trunk -x $fqrn | cut -d' ' -f2)
srv tag -a v1 -h "$new_root" $fqrn >/dev/null || fail "tag -a -h (move)"
line=$(srv tag -i v1 -x $fqrn)
[ "$(echo "$line" | cut -d' ' -f4)" = 3 ] || fail "tag not moved: $line"
echo "$line" | grep -q ' first release$' || fail "moved tag lost its description: $line"
expect_fail "tag -b" "tag -b (branch hierarchy) is not supported" srv tag -b $fqrn
expect_fail "tag -a -r" "ambiguous" srv tag -a x -r v1 $fqrn
expect_fail "tag -r without -f and no answer" "not confirmed" srv tag -r v1 $fqrn
srv tag -i v1 $fqrn >/dev/null || fail "unconfirmed tag -r removed the tag"
echo n | srv tag -r v1 $fqrn >/dev/null 2>&1 && fail "tag -r answered n succeeded"
srv tag -a v2 $fqrn >/dev/null
echo y | srv tag -r v1 -r v2 $fqrn >/dev/null || fail "tag -r answered y"
srv tag -i v1 $fqrn >/dev/null 2>&1 && fail "tag -r v1 not removed"
srv tag -i v2 $fqrn >/dev/null 2>&1 && fail "tag -r v2 not removed"
srv tag -a v3 $fqrn >/dev/null
srv tag -r v3 -f $fqrn >/dev/null || fail "tag -r -f"

# --- rollback asks
rev=$(manifest_field $fqrn S)
expect_fail "rollback without -f and no answer" "not confirmed" srv rollback $fqrn
[ "$(manifest_field $fqrn S)" = "$rev" ] || fail "unconfirmed rollback published"
echo y | srv rollback $fqrn >/dev/null || fail "rollback answered y"
[ "$(manifest_field $fqrn S)" = $((rev + 1)) ] || fail "confirmed rollback did not publish"

# --- publish: -a must be new, refused options by name
expect_fail "publish -a on an existing tag" "is already in use" srv publish -a trunk $fqrn
for opt in "-p" "-n 99" "-Z none" "-F f" "-f" "-d"; do
  # shellcheck disable=SC2086
  expect_fail "publish $opt" "publish ${opt%% *} is not supported" srv publish $opt $fqrn
done
# -X and -N are options (external data, test/interop/external_data_test.sh).
expect_fail "publish -X without a transaction" "no transaction is open" srv publish -X $fqrn
expect_fail "transaction -T" "transaction -T is not supported" srv transaction -T /a=/b $fqrn

# --- automatic tags: one of its own per publish, even within one second
n0=$(srv tag -l -x $fqrn | grep -cE '^generic(_[0-9]+)?-' || true)
for i in $(seq 32); do srv ingest -d sw2 $fqrn >/dev/null; done
n1=$(srv tag -l -x $fqrn | grep -cE '^generic(_[0-9]+)?-' || true)
[ $((n1 - n0)) = 32 ] || fail "32 publishes gave $((n1 - n0)) new auto tags"
srv tag -l -x $fqrn | grep -qE '^generic_1-' || fail "no de-duplicated generic_1- tag"
# CVMFS_AUTO_TAG_TIMESPAN: older auto tags go on the next publish.
echo "CVMFS_AUTO_TAG_TIMESPAN=@$(($(date +%s) + 3600))" >> "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf"
srv ingest -d sw2 $fqrn >/dev/null
n2=$(srv tag -l -x $fqrn | grep -cE '^generic(_[0-9]+)?-' || true)
[ "$n2" = 1 ] || fail "CVMFS_AUTO_TAG_TIMESPAN left $n2 auto tags"
sed -i '/CVMFS_AUTO_TAG_TIMESPAN/d' "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf"

# (publish -v needs a transaction: test/transaction/lifecycle_test.sh.)

# --- list-catalogs
out=$(srv list-catalogs -h $fqrn)
[ "$(echo "$out" | wc -l)" = 2 ] || fail "list-catalogs -h: $out"
echo "$out" | head -1 | grep -qE '^[0-9a-f]{40} /$' || fail "list-catalogs -h root line: $out"
echo "$out" | tail -1 | grep -qE '^├─ [0-9a-f]{40} /sw/a/nested$' || fail "list-catalogs -h nested line: $out"
out=$(srv list-catalogs -x -s -e -h $fqrn)
echo "$out" | grep -qE '^[0-9a-f]{40} [0-9]+B [0-9]+ /sw/a/nested$' || fail "list-catalogs -x -s -e -h: $out"
[ "$(srv list-catalogs -x $fqrn)" = "/
/sw/a/nested" ] || fail "list-catalogs -x: $(srv list-catalogs -x $fqrn)"

# --- ingest: -d alone, -t needs -b, -u refused, -k accepted
srv ingest -t "$work/t.tar" -b sw4 -k $fqrn >/dev/null || fail "ingest -k"
srv ingest -d sw4 $fqrn >/dev/null || fail "ingest -d alone"
srv list-catalogs -x $fqrn | grep -q sw4 && fail "ingest -d sw4 left its catalog"
expect_fail "ingest -t without -b" "needs the base directory" srv ingest -t "$work/t.tar" $fqrn
expect_fail "ingest -u" "ingest -u is not supported" srv ingest -u nobody -t "$work/t.tar" -b x $fqrn

# --- resign
expect_fail "resign -d 31 unanswered" "not confirmed" srv resign -d 31 $fqrn
srv resign -d 31 -f $fqrn >/dev/null || fail "resign -d 31 -f"
expect_fail "resign -w" "resign -w is not supported" srv resign -w /tmp/w $fqrn
expect_fail "resign -p -d" "cannot use -d with -p" srv resign -p -d 3 $fqrn
cp "$CVMFS_ROOTDIR/srv/cvmfs/$fqrn/.cvmfspublished" "$work/m.before"
sleep 1.1
srv resign -p $fqrn >/dev/null || fail "resign -p"
cmp -s "$work/m.before" "$CVMFS_ROOTDIR/srv/cvmfs/$fqrn/.cvmfspublished" && fail "resign -p changed nothing"
[ "$(manifest_field $fqrn S)" = "$(sed -n '/^--$/q;s/^S//p' "$work/m.before")" ] || fail "resign -p changed the revision"
[ "$(manifest_field $fqrn C)" = "$(sed -n '/^--$/q;s/^C//p' "$work/m.before")" ] || fail "resign -p changed the root"
srv tag -l $fqrn >/dev/null || fail "manifest after resign -p does not verify"

# --- transaction -t: retried while the lock is held
lock=$CVMFS_ROOTDIR/var/spool/cvmfs/$fqrn/is_publishing.lock
[ -e "$lock" ] || lock=$(find "$CVMFS_ROOTDIR" -name is_publishing.lock | head -1)
flock "$lock" sleep 2 &
holder=$!
sleep 0.3
expect_fail "transaction on a busy repository" "is running" srv transaction $fqrn
start=$(date +%s)
out=$(srv transaction -t 10 $fqrn 2>&1) && fail "transaction without mounts opened"
[[ "$out" == *"repository busy, retrying"* ]] || fail "transaction -t did not retry: $out"
[[ "$out" != *"is running"* ]] || fail "transaction -t gave up while busy: $out"
[ $(($(date +%s) - start)) -lt 9 ] || fail "transaction -t waited past the lock"
wait $holder
flock "$lock" sleep 3 &
holder=$!
sleep 0.3
out=$(srv transaction -t 1 $fqrn 2>&1) && fail "transaction -t 1 on a busy repository"
[[ "$out" == *"is running"* ]] || fail "transaction -t 1: $out"
wait $holder

# --- rmfs: asks; -p keeps data and keys; without -p all goes
expect_fail "rmfs unanswered" "not confirmed" srv rmfs $fqrn
[ -f "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf" ] || fail "unconfirmed rmfs removed the configuration"
srv rmfs -p -f $fqrn >/dev/null || fail "rmfs -p -f"
[ ! -e "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn" ] || fail "rmfs -p kept the configuration"
[ -f "$CVMFS_ROOTDIR/srv/cvmfs/$fqrn/.cvmfspublished" ] || fail "rmfs -p removed the data"
[ -f "$CVMFS_ROOTDIR/etc/cvmfs/keys/$fqrn.pub" ] || fail "rmfs -p removed the keys"
fqrn2=gone.test.org
srv mkfs $fqrn2 >/dev/null 2>&1
srv rmfs -f $fqrn2 >/dev/null || fail "rmfs -f"
for p in "etc/cvmfs/repositories.d/$fqrn2" "srv/cvmfs/$fqrn2" "etc/cvmfs/keys/$fqrn2.pub" \
         "etc/cvmfs/keys/$fqrn2.key" "etc/cvmfs/keys/$fqrn2.crt" "etc/cvmfs/keys/$fqrn2.masterkey"; do
  [ ! -e "$CVMFS_ROOTDIR/$p" ] || fail "rmfs left $p"
done
echo "PASS: options_test"
