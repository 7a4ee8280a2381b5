#!/usr/bin/env bash
# Installs the Debian 12 packages needed to build and test this project.
# Idempotent: packages already present are skipped quickly.
#   packaging/install-deps.sh            build + unit test dependencies
#   packaging/install-deps.sh --bench    also the benchmark corpora (linux-source-6.1)
#   packaging/install-deps.sh --integration  also Apache, Squid, FUSE tools,
#                                            autofs, clang and clang-format (the
#                                            style checks), the libraries the
#                                            real CVMFS client needs
#                                            (test/interop/) and toxiproxy
#                                            (built with Go, see below)
#   packaging/install-deps.sh --s3       also SeaweedFS's `weed` (the S3 server of
#                                        the S3 storage tests, built with Go)
#   packaging/install-deps.sh --no-s3    not weed, even with --s3
#   packaging/install-deps.sh --bench-suite  also what test/bench/run compares
#                                            against and measures with (httpdirfs,
#                                            rclone, fio, matplotlib, ...)
set -euo pipefail

build_pkgs=(
  build-essential cmake ninja-build pkg-config git
  libssl-dev zlib1g-dev libsqlite3-dev libcurl4-openssl-dev libfuse3-dev fuse3
  libarchive-dev libdeflate-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libmicrohttpd-dev
  libbenchmark-dev sqlite3 attr tar xz-utils
  libpacparser-dev libmaxminddb-dev
)
extra_pkgs=()
want_toxiproxy=no
want_weed=no
no_weed=no
want_cvmfs_user=no
for arg in "$@"; do
  case "$arg" in
    --bench) extra_pkgs+=(linux-source-6.1 time) ;;
    --bench-suite)
      # The Python stack corpus is copied from python3-matplotlib and its
      # dependencies; python3-dev provides the headers the compile workload uses.
      extra_pkgs+=(linux-source-6.1 time bc fio httpdirfs rclone python3-matplotlib python3-dev) ;;
    --integration)
      # clang: test/style/thread_safety_check.sh; clang-format (14):
      # test/style/format_test.sh; libclang-rt-14-dev: libFuzzer and the
      # sanitizer runtimes of clang (-DCVMFS_FUZZ=ON, doc/testing.md), only
      # recommended by clang, so not installed without it here.
      extra_pkgs+=(apache2 squid curl psmisc attr fuse3 autofs strace clang clang-format
                   libclang-rt-14-dev)
      # The real CVMFS 2.12 client and swissknife (test/interop/, from
      # ../shared/reference): their run-time libraries.
      extra_pkgs+=(libfuse3-3 libcurl4 libc-ares2 libpacparser1 libsqlite3-0 libleveldb1d
        libprotobuf-lite32 libuuid1 libsnappy1v5 libssl3 util-linux)
      # Packages: the Debian packages' build, lintian, and the clean-root
      # install test (test/packaging/); promtool (prometheus) checks every
      # metrics output; man-db renders the man pages.
      extra_pkgs+=(dpkg-dev fakeroot lintian mmdebstrap prometheus man-db)
      # The Geo-API test writes its own GeoLite2-style database.
      extra_pkgs+=(libmaxmind-db-writer-perl)
      want_toxiproxy=yes
      want_cvmfs_user=yes ;;
    --s3) want_weed=yes ;;
    --no-s3) no_weed=yes ;;
    *) echo "install-deps: unknown option $arg" >&2; exit 2 ;;
  esac
done

[ "$no_weed" = no ] || want_weed=no
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# toxiproxy (network fault injection for the client integration tests) is not
# packaged in Debian 12; it is built from its Go module into /usr/local/bin.
# Needs the Go toolchain (golang-go, or /usr/local/go) and the Go module proxy.
toxiproxy_version=v2.9.0
install_toxiproxy() {
  command -v toxiproxy-server >/dev/null && return 0
  local go_bin
  go_bin=$(command -v go || true)
  [ -n "$go_bin" ] || { [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go; }
  if [ -z "$go_bin" ]; then
    echo "install-deps: toxiproxy-server missing and no Go toolchain to build it;" \
      "install golang-go and re-run" >&2
    return 1
  fi
  local gobin
  gobin=$(mktemp -d)
  echo "install-deps: building toxiproxy $toxiproxy_version with $go_bin"
  GOBIN=$gobin "$go_bin" install "github.com/Shopify/toxiproxy/v2/cmd/server@$toxiproxy_version"
  $SUDO install -m 0755 "$gobin/server" /usr/local/bin/toxiproxy-server
  rm -rf "$gobin"
}

# SeaweedFS (`weed server -s3`: the S3 endpoint of the S3 storage tests,
# test/lib/s3.sh) is not packaged in Debian 12. Its module has `replace`
# directives, so `go install module@version` refuses it: the module is
# downloaded from the Go module proxy, copied somewhere writable and built
# there. Takes ~10 min of one core; GOMAXPROCS / nice limit its share.
weed_module=github.com/seaweedfs/seaweedfs
weed_version=v0.0.0-20261109003541-7506e5f91cd6
install_weed() {
  command -v weed >/dev/null && return 0
  local go_bin
  go_bin=$(command -v go || true)
  [ -n "$go_bin" ] || { [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go; }
  if [ -z "$go_bin" ]; then
    echo "install-deps: weed missing and no Go toolchain to build it;" \
      "install golang-go and re-run" >&2
    return 1
  fi
  local work dir
  work=$(mktemp -d)
  echo "install-deps: building SeaweedFS $weed_version with $go_bin"
  dir=$(cd "$work" && GOFLAGS=-mod=mod "$go_bin" mod download -json \
    "$weed_module@$weed_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    echo "install-deps: could not download $weed_module@$weed_version" >&2
    rm -rf "$work"
    return 1
  fi
  cp -r "$dir" "$work/src"
  chmod -R u+w "$work/src"
  (cd "$work/src" && CGO_ENABLED=0 "$go_bin" build -trimpath -o "$work/weed" ./weed)
  $SUDO install -m 0755 "$work/weed" /usr/local/bin/weed
  rm -rf "$work"
}

# The client drops to CVMFS_USER (default cvmfs) once mounted, as CVMFS's
# does; the packages' postinst creates the same system user and group.
add_cvmfs_user() {
  getent passwd cvmfs >/dev/null && return 0
  getent group cvmfs >/dev/null || $SUDO groupadd --system cvmfs
  $SUDO useradd --system --gid cvmfs --home-dir /var/lib/cvmfs --no-create-home \
    --shell /usr/sbin/nologin --comment "CernVM-FS service account" cvmfs
}
[ "$want_cvmfs_user" = no ] || add_cvmfs_user

missing=()
for p in "${build_pkgs[@]}" "${extra_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  [ "$want_toxiproxy" = no ] || install_toxiproxy
  [ "$want_weed" = no ] || install_weed
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[ "$want_toxiproxy" = no ] || install_toxiproxy
[ "$want_weed" = no ] || install_weed
