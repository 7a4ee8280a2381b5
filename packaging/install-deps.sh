#!/usr/bin/env bash
# Installs the Debian 12 packages needed to build and test this project.
# Idempotent: packages already present are skipped quickly.
#   packaging/install-deps.sh            build + unit test dependencies
#   packaging/install-deps.sh --bench    also the benchmark corpora (linux-source-6.1)
#   packaging/install-deps.sh --integration  also Apache, Squid, FUSE tools
set -euo pipefail

build_pkgs=(
  build-essential cmake ninja-build pkg-config git
  libssl-dev zlib1g-dev libsqlite3-dev libcurl4-openssl-dev libfuse3-dev fuse3
  libarchive-dev libdeflate-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libmicrohttpd-dev
  libbenchmark-dev sqlite3 attr tar xz-utils
)
extra_pkgs=()
for arg in "$@"; do
  case "$arg" in
    --bench) extra_pkgs+=(linux-source-6.1 time) ;;
    --integration) extra_pkgs+=(apache2 squid curl psmisc) ;;
    *) echo "install-deps: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${build_pkgs[@]}" "${extra_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
