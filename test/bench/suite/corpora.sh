# Corpora of the benchmark suite (sourced by test/bench/run after common.sh).
#
#   corpora_build SCALE        builds (once) and prints the corpus tree of SCALE
#
# SCALE is "quick" or "full". A corpus tree holds
#   linux/    the Linux 6.1 source tree from Debian's linux-source-6.1 (full),
#             or only fs/ext4 and fs/Makefile of it (quick: 52 files, because
#             httpdirfs spends 40-70 ms on every request)
#   big/big.bin  real binary content: the regular files of /usr/lib/x86_64-linux-gnu,
#             /usr/lib and /usr/bin concatenated in byte order of their paths and
#             cut at 256 MiB (full) or 16 MiB (quick)
#   stack/    a software stack: the Python 3.11 interpreter, its standard
#             library, its C headers and (full only) the Debian packages of
#             matplotlib and its dependencies (numpy, PIL, fontTools, ...),
#             laid out as an installation prefix (bin/, include/, lib/)
# Trees are kept in $BENCH_CORPORA (default /var/tmp/cvmfs-bench-corpora),
# outside the run's work directory, because building them costs minutes and
# their content only depends on the packages installed on the machine. A
# stamp file marks a finished tree; a half-built one is rebuilt from scratch.
# Every directory is world-readable: Apache's workers serve the trees.

BENCH_CORPORA=${BENCH_CORPORA:-/var/tmp/cvmfs-bench-corpora}
readonly CORPUS_VERSION=3
readonly LINUX_TARBALL=/usr/src/linux-source-6.1.tar.xz
# Packages whose Python files make up stack/lib/python3/dist-packages.
readonly STACK_PACKAGES="python3-matplotlib python3-numpy python3-pil python3-fonttools
  python3-kiwisolver python3-dateutil python3-pyparsing python3-cycler python3-packaging
  python3-six python3-brotli python3-unicodedata2"

_corpus_big_bytes() { case $1 in quick) echo $((16 << 20)) ;; *) echo $((256 << 20)) ;; esac; }

# The extracted Linux tree, shared by both scales.
_corpus_linux_source() {
  local dst=$BENCH_CORPORA/linux-6.1
  if [ ! -e "$dst.done" ]; then
    [ -r "$LINUX_TARBALL" ] || fail "$LINUX_TARBALL missing (install linux-source-6.1)"
    note "extracting $LINUX_TARBALL into $dst (once)" >&2
    rm -rf "$dst"
    mkdir -p "$dst"
    xz -dc -T2 "$LINUX_TARBALL" | tar -C "$dst" --strip-components=1 -xf - ||
      fail "could not extract $LINUX_TARBALL"
    touch "$dst.done"
  fi
  echo "$dst"
}

_corpus_linux() {  # _corpus_linux SCALE TREE
  local src
  src=$(_corpus_linux_source)
  case $1 in
    quick)
      mkdir -p "$2/linux/fs"
      cp -a "$src/fs/ext4" "$src/fs/Makefile" "$2/linux/fs/"
      ;;
    *) cp -a "$src" "$2/linux" ;;
  esac
}

_corpus_big() {  # _corpus_big BYTES FILE
  local bytes=$1 out=$2
  mkdir -p "$(dirname "$out")"
  # xargs cat stops early when head closes the pipe: SIGPIPE is expected.
  { find /usr/lib/x86_64-linux-gnu /usr/lib /usr/bin -xdev -type f -size +16k -print0 |
      LC_ALL=C sort -zu | xargs -0 cat 2>/dev/null || true; } | head -c "$bytes" >"$out"
  [ "$(stat -c %s "$out")" -eq "$bytes" ] ||
    fail "only $(stat -c %s "$out") bytes of binaries found for the $bytes-byte big file"
}

_corpus_stack() {  # _corpus_stack SCALE DIR
  local scale=$1 dst=$2 list p
  mkdir -p "$dst/bin" "$dst/include" "$dst/lib/python3/dist-packages"
  cp -a /usr/bin/python3.11 "$dst/bin/python3.11"
  ln -s python3.11 "$dst/bin/python3"
  cp -a /usr/include/python3.11 "$dst/include/python3.11"
  tar -C /usr/lib --exclude=python3.11/dist-packages --exclude=python3.11/site-packages \
    -cf - python3.11 | tar -C "$dst/lib" -xf -
  [ "$scale" = full ] || return 0
  list=$WORK/stack-files
  : >"$list"
  for p in $STACK_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || continue
    dpkg -L "$p" | grep '^/usr/lib/python3/dist-packages/.' >>"$list" || true
  done
  [ -s "$list" ] || fail "none of $STACK_PACKAGES is installed (run packaging/install-deps.sh --bench-suite)"
  # Directories are listed too: --no-recursion copies exactly the packages' files.
  LC_ALL=C sort -u "$list" | sed 's|^/||' |
    tar -C / --no-recursion -cf - -T - | tar -C "$dst/lib/python3/dist-packages" \
      --strip-components=4 -xf -
  # Debian compiles the byte code at installation; it is not in the package lists.
  "$dst/bin/python3.11" -m compileall -q "$dst/lib/python3/dist-packages" >/dev/null ||
    fail "could not byte-compile $dst/lib/python3/dist-packages"
}

corpora_build() {
  local scale=$1 dir=$BENCH_CORPORA/$1
  local stamp=$dir/.complete-v$CORPUS_VERSION
  if [ ! -e "$stamp" ]; then
    note "building the $scale corpus in $dir" >&2
    rm -rf "$dir"
    mkdir -p "$dir/tree"
    _corpus_linux "$scale" "$dir/tree"
    _corpus_big "$(_corpus_big_bytes "$scale")" "$dir/tree/big/big.bin"
    _corpus_stack "$scale" "$dir/tree/stack"
    chmod -R a+rX "$dir" && chmod 0755 "$BENCH_CORPORA"
    touch "$stamp"
  fi
  echo "$dir/tree"
}

# corpus_summary TREE: "DIR FILES BYTES" lines for the report.
corpus_summary() {
  local d
  for d in linux big stack; do
    find "$1/$d" -type f -printf '%s\n' | awk -v d="$d" '{ n++; b += $1 } END { print d, n, b }'
  done
}
