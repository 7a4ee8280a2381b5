#!/usr/bin/env bash
# Two publisher machines of one repository through our cvmfs_gateway
# (doc/gateway.md, "Publisher machines"), each with its own CVMFS_ROOTDIR,
# spool and transaction mounts, set up by `mkfs -u gw,... -k ... -w ...`:
#   1. 20 transaction/publish cycles each, in parallel, publisher A leasing
#      /a/NN and B /b/NN: every revision passes `check`, each revision adds
#      exactly one cycle's change, the final one holds all 40 exactly once,
#      and the real CVMFS checker (if the reference tarball is there) agrees;
#   2. an overlapping lease is refused at once, naming path and holder;
#   3. a change outside the leased path is refused before anything is sent;
#      abort drops the lease;
#   4. a killed publisher: its lease expires (max_lease_time 3 s), the
#      other takes the path, the late publish fails and changes nothing;
#   5. our client with CVMFS_NOTIFICATION_SERVER at the gateway mounts a
#      revision published through it as soon as it is announced (TTL 1 h),
#      and a Stratum 1 following the gateway's notifications
#      (packaging/server/cvmfs-snapshot-on-notify) snapshots it;
#   6. `ingest` on a publisher machine leases its base directory (or the
#      path it deletes): refused while another publisher holds it or while
#      its own transaction is open, refused for a tarball plus -d or two
#      -d (as CVMFS's), and otherwise published through the gateway.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/real_cvmfs.sh"

real_cvmfs_private_etc "$@"
test_init gateway_publishers 240
require_bins cvmfs_server cvmfs_gateway cvmfs2 cvmfs_swissknife
grep -qw overlay /proc/filesystems || skip "the kernel has no overlayfs"

fqrn=gw.test.org
gw_root=$CVMFS_ROOTDIR
gw() { CVMFS_ROOTDIR=$gw_root "$BIN/cvmfs_server" "$@"; }
pub() {
  local who=$1
  shift
  CVMFS_ROOTDIR=$WORK/pub$who "$BIN/cvmfs_server" "$@"
}
union() { echo "$WORK/pub$1/cvmfs/$fqrn"; }
revision() { manifest_field $fqrn S; }

# --- the gateway machine: the repository, served, and the gateway ---------
CVMFS_SERVER_NO_MOUNT=1 gw mkfs -a shake128 $fqrn >"$WORK/mkfs.log" 2>&1 ||
  fail "mkfs: $(cat "$WORK/mkfs.log")"
echo "CVMFS_REPOSITORY_TTL=3600" >>"$gw_root/etc/cvmfs/repositories.d/$fqrn/server.conf"
gw serve -p 0 $fqrn </dev/null >"$WORK/serve.out" 2>&1 &
serve_pid=$!
on_exit "kill $serve_pid 2>/dev/null || true"
wait_for 10 "cvmfs_server serve" grep -q "^serving $fqrn at " "$WORK/serve.out"
stratum0=$(sed -n "s|^serving $fqrn at ||p" "$WORK/serve.out")

keys=$gw_root/etc/cvmfs/keys
mkdir -p "$gw_root/etc/cvmfs/gateway"
cat >"$gw_root/etc/cvmfs/gateway/repo.json" <<JSON
{"version": 2,
 "repos": [{"domain": "$fqrn",
            "keys": [{"id": "pub-a", "path": "/"}, {"id": "pub-b", "path": "/"}]}],
 "keys": [{"type": "plain_text", "id": "pub-a", "secret": "secret-a"},
          {"type": "plain_text", "id": "pub-b", "secret": "secret-b"}]}
JSON
gw_port=$(free_port)
api=http://127.0.0.1:$gw_port/api/v1
gw_pid=""
gw_start() {
  local log=$WORK/gateway.$SECONDS.log
  CVMFS_ROOTDIR=$gw_root "$BIN/cvmfs_gateway" --address 127.0.0.1 \
    --port "$gw_port" "$@" >"$log" 2>&1 &
  gw_pid=$!
  show_on_failure "$log"
  wait_for 10 "the gateway to listen" grep -q "listening on" "$log"
}
gw_stop() {
  kill "$gw_pid" 2>/dev/null || true
  wait_pid_exit 10 "$gw_pid" || fail "the gateway did not stop"
}
on_exit 'kill $gw_pid 2>/dev/null || true'
gw_start --max_lease_time 120

# --- two publisher machines: the keys they get from the gateway's admin ----
for who in A B; do
  lower=$(echo $who | tr AB ab)
  mkdir -p "$WORK/keys$who"
  cp "$keys/$fqrn.pub" "$keys/$fqrn.crt" "$WORK/keys$who/"
  echo "plain_text pub-$lower secret-$lower" >"$WORK/keys$who/$fqrn.gw"
  pub $who mkfs -u "gw,/unused,$api" -k "$WORK/keys$who" -w "$stratum0" $fqrn \
    >"$WORK/mkfs$who.log" 2>&1 || fail "publisher $who: mkfs: $(cat "$WORK/mkfs$who.log")"
  on_exit "CVMFS_ROOTDIR=$WORK/pub$who \"$BIN/cvmfs_server\" rmfs -f $fqrn >/dev/null 2>&1 || true"
  grep -q "^CVMFS_UPSTREAM_STORAGE=gw,.*,$api\$" \
    "$WORK/pub$who/etc/cvmfs/repositories.d/$fqrn/server.conf" ||
    fail "publisher $who: no gw upstream in server.conf"
  # mkfs gave no -a: the repository's algorithm was taken.
  grep -q "^CVMFS_HASH_ALGORITHM=shake128\$" \
    "$WORK/pub$who/etc/cvmfs/repositories.d/$fqrn/server.conf" ||
    check_failed "publisher $who does not hash with the repository's shake128"
  [ ! -e "$WORK/pub$who/etc/cvmfs/keys/$fqrn.key" ] ||
    fail "publisher $who got the repository's signing key"
done

pub A transaction $fqrn >/dev/null || fail "transaction of the whole repository"
mkdir "$(union A)/a" "$(union A)/b"
pub A publish $fqrn >"$WORK/first.log" 2>&1 || fail "first publish: $(cat "$WORK/first.log")"
base_rev=$(revision)
expect_eq "revision after the first publish through the gateway" 2 "$base_rev"

# --- 1. 20 publishes each, in parallel ----------------------------------------
cycle() {
  local who=$1 dir=$2 i=$3
  pub "$who" transaction "$fqrn/$dir/$i" || return 1
  mkdir "$(union "$who")/$dir/$i"
  echo "$who $i" >"$(union "$who")/$dir/$i/file"
  if [ "$dir$i" = a20 ]; then
    # A nested catalog and a chunked file (20 MiB: chunks of 4-16 MiB).
    touch "$(union "$who")/$dir/$i/.cvmfscatalog"
    cp "$WORK/big" "$(union "$who")/$dir/$i/big"
  fi
  pub "$who" publish $fqrn || return 1
}
make_random_file "$WORK/big" 20971520 gateway-big
start=$SECONDS
(for i in $(seq -w 1 20); do cycle A a "$i" || exit 1; done) >"$WORK/cyclesA.log" 2>&1 &
pid_a=$!
(for i in $(seq -w 1 20); do cycle B b "$i" || exit 1; done) >"$WORK/cyclesB.log" 2>&1 &
pid_b=$!
wait $pid_a || fail "publisher A's cycles: $(tail -5 "$WORK/cyclesA.log")"
wait $pid_b || fail "publisher B's cycles: $(tail -5 "$WORK/cyclesB.log")"
note "40 publishes through the gateway in $((SECONDS - start)) s"
expect_eq "final revision" $((base_rev + 40)) "$(revision)"

# Every revision: clean, and exactly one cycle's change on top of the last.
gw tag -l -x $fqrn >"$WORK/tags" || fail "tag -l"
declare -A tag_of=()
while read -r name _ _ rev _; do
  case $name in generic*) tag_of[$rev]=$name ;; esac
done <"$WORK/tags"
seen=""
start=$SECONDS
for rev in $(seq $((base_rev + 1)) $((base_rev + 40))); do
  [ -n "${tag_of[$rev]:-}" ] || { check_failed "no tag for revision $rev"; continue; }
  gw check -c -t "${tag_of[$rev]}" $fqrn >"$WORK/check.$rev" 2>&1 ||
    check_failed "check of revision $rev: $(tail -3 "$WORK/check.$rev")"
  added=$(gw diff -m -s "${tag_of[$((rev - 1))]:-trunk-previous}" -d "${tag_of[$rev]}" $fqrn |
    awk -F'\t' '$1 == "A" { print $3 }' | LC_ALL=C sort | tr '\n' ' ')
  extra=""
  [[ "$added" == /a/20\ * ]] && extra="/a/20/.cvmfscatalog /a/20/big "
  [[ "$added" =~ ^/([ab])/([0-9][0-9])\ (.*)$ ]] &&
    [ "${BASH_REMATCH[3]}" = "$extra/${BASH_REMATCH[1]}/${BASH_REMATCH[2]}/file " ] ||
    check_failed "revision $rev adds '$added', not one directory with its file"
  seen+="${BASH_REMATCH[1]:-?}${BASH_REMATCH[2]:-?} "
done
expect_eq "changes over the 40 revisions" \
  "$(for d in a b; do for i in $(seq -w 1 20); do echo "$d$i"; done; done | sort | tr '\n' ' ')" \
  "$(tr ' ' '\n' <<<"$seen" | sed '/^$/d' | sort | tr '\n' ' ')"
note "every revision checked in $((SECONDS - start)) s"
gw check $fqrn >"$WORK/check.final" 2>&1 || check_failed "check: $(cat "$WORK/check.final")"
if [ -f "${CVMFS_REFERENCE_DIR:-$SOURCE_DIR/../shared/reference}/cvmfs-2.12-real-debian12-amd64.tar.xz" ]; then
  real_cvmfs_init
  real_swissknife check -r "$(repo_storage $fqrn)" -k "$(repo_public_key $fqrn)" \
    -N $fqrn -c -t "$WORK" >"$WORK/real-check" 2>&1 ||
    check_failed "the real CVMFS checker: $(tail -5 "$WORK/real-check")"
fi
pass "40 publishes from two machines: every revision checked, each change once"

# --- 2. an overlapping lease is refused with the holder named ----------------
pub A transaction $fqrn/a >/dev/null || fail "transaction $fqrn/a"
if out=$(pub B transaction $fqrn/a/07 2>&1); then
  fail "an overlapping lease was granted: $out"
fi
[[ "$out" == *"$fqrn/a/07"*"pub-a"*"$fqrn/a"* ]] ||
  check_failed "the refusal does not name the path and its holder: $out"
pass "overlapping lease refused: $(tail -1 <<<"$out")"
# As CVMFS: the leased path's parent must exist; the lease is dropped again.
if out=$(pub B transaction $fqrn/c/x 2>&1); then fail "a lease below a missing directory"; fi
[[ "$out" == *"its parent /c does not exist"* ]] || check_failed "missing parent: $out"
pub B transaction $fqrn/c >/dev/null || fail "the refused lease on /c/x was kept"
pub B abort -f $fqrn >/dev/null || fail "abort of the transaction on /c"

# --- 3. a change outside the lease is refused before anything is sent --------
before=$(revision)
echo stray >"$(union A)/b/stray"
if out=$(pub A publish $fqrn 2>&1); then fail "a change outside the lease was published"; fi
[[ "$out" == *"/b is outside the leased path $fqrn/a: nothing was sent"* ]] ||
  check_failed "unclear refusal of a change outside the lease: $out"
expect_eq "revision after the refused publish" "$before" "$(revision)"
pub A abort -f $fqrn >/dev/null || fail "abort after the refused publish"
[ ! -e "$WORK/pubA/var/spool/cvmfs/$fqrn/session_token" ] ||
  check_failed "abort left the session token"
pub B transaction $fqrn/a/07 >/dev/null || fail "abort did not drop the lease on /a"
pub B abort -f $fqrn >/dev/null || fail "abort of B's transaction"
pass "a change outside the lease was refused; abort dropped the lease"

# --- 4. the lease of a publisher that went away expires -----------------------
gw_stop
gw_start --max_lease_time 3
pub A transaction $fqrn/a/01 >/dev/null || fail "transaction $fqrn/a/01"
[ "$(stat -c %a "$WORK/pubA/var/spool/cvmfs/$fqrn/session_token")" = 600 ] ||
  check_failed "the session token is not private"
echo late >"$(union A)/a/01/late"
# A's publish is killed before it could commit and its machine goes away:
# B waits for the path (transaction -t retries). The gateway is stopped
# (SIGSTOP) meanwhile, so that the publish cannot get as far as its commit
# however fast this machine is; its clock, and so the lease, runs on.
kill -STOP "$gw_pid"
CVMFS_ROOTDIR=$WORK/pubA "$BIN/cvmfs_server" publish $fqrn >/dev/null 2>&1 &
killed=$!
sleep 0.5
kill -9 $killed 2>/dev/null || true
wait $killed 2>/dev/null || true
kill -CONT "$gw_pid"
pub B transaction $fqrn/a/01 >/dev/null 2>&1 && fail "B got A's live lease"
pub B transaction -t 20 $fqrn/a/01 >"$WORK/retry.log" 2>&1 ||
  fail "B did not get the path after A's lease expired: $(cat "$WORK/retry.log")"
echo "from B" >"$(union B)/a/01/taken"
pub B publish $fqrn >/dev/null || fail "B's publish of the path A held"
before=$(revision)
if out=$(pub A publish $fqrn 2>&1); then fail "a publish with an expired lease succeeded"; fi
[[ "$out" == *"lease on $fqrn/a/01 is no longer valid"* ]] ||
  check_failed "unclear failure of a publish whose lease expired: $out"
expect_eq "revision after the expired publish" "$before" "$(revision)"
pub A abort -f $fqrn >/dev/null || fail "abort of the expired transaction"
pass "a killed publisher's lease expired; the late publish changed nothing"
gw_stop
gw_start --max_lease_time 120

# --- 5. a client follows the gateway's notifications --------------------------
config=$WORK/client.conf
test_client_config "$config" "$stratum0" "$(repo_public_key $fqrn)" \
  "CVMFS_NOTIFICATION_SERVER=$api"
mnt=$WORK/mnt
mount_repo $fqrn "$mnt" "$config"
s1root=$WORK/s1
s1() { CVMFS_ROOTDIR=$s1root "$BIN/cvmfs_server" "$@"; }
s1_revision() { sed -n '/^--$/q;s/^S//p' "$s1root/srv/cvmfs/$fqrn/.cvmfspublished"; }
s1 add-replica -o root "$stratum0" "$(repo_public_key $fqrn)" >"$WORK/s1.log" 2>&1 ||
  fail "add-replica: $(cat "$WORK/s1.log")"
s1 snapshot $fqrn >"$WORK/s1.log" 2>&1 || fail "snapshot: $(cat "$WORK/s1.log")"
PATH=$BIN:$PATH CVMFS_ROOTDIR=$s1root "$SOURCE_DIR/packaging/server/cvmfs-snapshot-on-notify" \
  $fqrn "$api" >"$WORK/follower.log" 2>&1 &
follower=$!
on_exit "pkill -P $follower 2>/dev/null; kill $follower 2>/dev/null || true"
show_on_failure "$WORK/follower.log"
for d in a b; do
  for i in $(seq -w 1 20); do
    want="$(echo $d | tr ab AB) $i"
    [ "$(cat "$mnt/$d/$i/file" 2>&1)" = "$want" ] ||
      check_failed "$d/$i/file: '$(cat "$mnt/$d/$i/file" 2>&1)', expected '$want'"
  done
done
[ "$(magic_xattr chunks "$mnt/a/20/big")" -gt 1 ] ||
  check_failed "a/20/big is not chunked: $(magic_xattr chunks "$mnt/a/20/big") chunk(s)"
expect_eq "the chunked file" "$(sha256_of "$WORK/big")" "$(sha256_of "$mnt/a/20/big" 2>&1)"
gw list-catalogs $fqrn | grep -q "/a/20" ||
  check_failed "/a/20 is no nested catalog: $(gw list-catalogs $fqrn 2>&1)"
expect_eq "B's file where A's lease expired" "from B" "$(cat "$mnt/a/01/taken")"
[ ! -e "$mnt/a/01/late" ] || check_failed "the expired publish reached the repository"
[ ! -e "$mnt/b/stray" ] || check_failed "the change outside the lease reached the repository"
pub B transaction $fqrn/b >/dev/null || fail "transaction $fqrn/b"
echo news >"$(union B)/b/news"
pub B publish $fqrn >/dev/null || fail "publish of the news"
new_rev=$(revision)
# Announced as CVMFS's publishers do; again every 0.5 s, as the gateway
# cannot say when the client's subscription is in place.
announce() {
  "$BIN/cvmfs_swissknife" notify -p -u "$api" -r "$stratum0" >"$WORK/notify.log" 2>&1 ||
    fail "notify -p: $(cat "$WORK/notify.log")"
}
# announce_until_mounted REV: announces until the client mounts REV (10 s).
announce_until_mounted() {
  for _ in $(seq 20); do
    announce
    for _ in 1 2 3 4 5; do
      [ "$(magic_xattr revision "$mnt")" = "$1" ] && return 0
      sleep 0.1
    done
  done
}
start=$(date +%s.%N)
announce_until_mounted "$new_rev"
expect_eq "revision after the announcement" "$new_rev" "$(magic_xattr revision "$mnt")"
took=$(python3 -c "import time; print('%.2f' % (time.time() - $start))")
expect_eq "the announced file" news "$(cat "$mnt/b/news")"
pass "the client mounted revision $new_rev ${took} s after the gateway announced it (TTL 3600 s)"
wait_for 30 "the Stratum 1 to snapshot revision $new_rev" eval '[ "$(s1_revision)" = "$new_rev" ]'
pass "the Stratum 1 following the gateway snapshotted revision $new_rev"

# --- 6. ingest through the gateway ----------------------------------------------
mkdir -p "$WORK/tarsrc/sub"
for i in $(seq 1 50); do echo "ingested $i" >"$WORK/tarsrc/sub/f$i"; done
tar -C "$WORK/tarsrc" -cf "$WORK/in.tar" .
before=$(revision)
pub A transaction $fqrn/a >/dev/null || fail "transaction $fqrn/a"
if out=$(pub B ingest -t "$WORK/in.tar" -b a/ingested $fqrn 2>&1); then
  fail "an ingest into a path another publisher leased succeeded: $out"
fi
[[ "$out" == *"$fqrn/a/ingested"*"pub-a"* ]] ||
  check_failed "the refused ingest does not name the lease's holder: $out"
if out=$(pub A ingest -t "$WORK/in.tar" -b b/ingested $fqrn 2>&1); then
  fail "an ingest during the publisher's own transaction succeeded: $out"
fi
[[ "$out" == *"a transaction is open"* ]] || check_failed "unclear refusal during a transaction: $out"
pub A abort -f $fqrn >/dev/null || fail "abort of the transaction on /a"
if out=$(pub B ingest -t "$WORK/in.tar" -b b/ingested -d b/news $fqrn 2>&1); then
  fail "an ingest of a tarball plus -d through the gateway succeeded"
fi
[[ "$out" == *"either adds a tarball"* ]] || check_failed "unclear refusal of -t with -d: $out"
if out=$(pub B ingest -d b/news -d b/01 $fqrn 2>&1); then
  fail "an ingest deleting two paths through the gateway succeeded"
fi
[[ "$out" == *"deletes one path"* ]] || check_failed "unclear refusal of two -d: $out"
if out=$(pub B ingest -t "$WORK/in.tar" -b x/y $fqrn 2>&1); then
  fail "an ingest below a missing directory succeeded"
fi
[[ "$out" == *"its parent /x does not exist"* ]] || check_failed "missing parent: $out"
expect_eq "revision after the refused ingests" "$before" "$(revision)"
[ ! -e "$WORK/pubB/var/spool/cvmfs/$fqrn/session_token" ] ||
  check_failed "a refused ingest left a session token"
pub B ingest -t "$WORK/in.tar" -b b/ingested -c $fqrn >"$WORK/ingest.log" 2>&1 ||
  fail "ingest through the gateway: $(cat "$WORK/ingest.log")"
pub A ingest -d b/news $fqrn >"$WORK/ingest-d.log" 2>&1 ||
  fail "ingest -d through the gateway: $(cat "$WORK/ingest-d.log")"
expect_eq "revision after two ingests" $((before + 2)) "$(revision)"
gw check -c $fqrn >"$WORK/check.ingest" 2>&1 || check_failed "check: $(cat "$WORK/check.ingest")"
gw list-catalogs $fqrn | grep -q "/b/ingested" ||
  check_failed "ingest -c made no nested catalog at /b/ingested"
new_rev=$(revision)
announce_until_mounted "$new_rev"
expect_eq "revision the client mounted" "$new_rev" "$(magic_xattr revision "$mnt")"
diff -r "$WORK/tarsrc" "$mnt/b/ingested" || check_failed "the ingested tree differs"
[ ! -e "$mnt/b/news" ] || check_failed "ingest -d did not delete /b/news"
[ -e "$mnt/b/01/file" ] || check_failed "ingest -d deleted more than /b/news"
pass "ingest through the gateway: a tarball into a nested catalog and a deletion"
finish
