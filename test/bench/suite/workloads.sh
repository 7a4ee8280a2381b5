# Workloads of the benchmark suite (sourced by test/bench/run). Each reads
# from ROOT, the root of a corpus tree as one of the systems presents it
# (a mount point, or the local tree), and writes nothing below ROOT.
#
#   workload_run NAME ROOT      runs workload NAME; its status is the result
#   workload_describe NAME      one line for the report
#
# WORKLOAD_TREE (default linux) is the subtree that tar, find and ls walk;
# the latency section points it at a smaller one. The fio workload is
# defined in fio.sh. Workloads that need
# scratch space use $WORK/scratch.

declare -A WORKLOAD_TEXT=(
  [tar]="full read of the tree: tar cf - DIR | cat >/dev/null"
  [find]="metadata walk: find DIR -printf '%p %s %m %T@ %u\\n'"
  [ls]="metadata walk with extended attributes: ls -lR DIR"
  [bigseq]="the big file read sequentially: dd bs=1M"
  [compile]="gcc -c of a C file including Python.h and numpy's arrayobject.h from stack/ (quick: patchlevel.h only)"
  [pystart]="stack/bin/python3.11 starting and importing numpy, PIL, matplotlib, fontTools and 40 standard modules (quick: 5 standard modules)"
  [fio]="fio reads of big/big.bin, sequential and random, 8 KiB to 1 MiB records (psync)"
  [readers]="64 parallel readers: the files of DIR in name order, dealt round robin to 64 cat processes"
)
readonly READERS=64
WORKLOAD_TREE=${WORKLOAD_TREE:-linux}

# Python modules imported by pystart: the interpreter start-up of a typical
# scientific script. matplotlib.pyplot is left out because it builds a font
# cache on first use, which would measure the cache build, not the file system.
# The quick corpus has no packages: it imports a few standard modules only.
readonly PYSTART_IMPORTS_QUICK="json, email.mime.text, http.client, argparse, logging"
readonly PYSTART_IMPORTS_FULL="numpy, PIL.Image, matplotlib, matplotlib.colors, fontTools.ttLib,
  dateutil.parser, pyparsing, kiwisolver, argparse, asyncio, base64, collections, csv,
  ctypes, dataclasses, datetime, decimal, email.mime.multipart, fractions, gzip, hashlib,
  http.client, importlib.metadata, inspect, json, logging.handlers, multiprocessing,
  pathlib, pickle, random, re, shutil, socket, sqlite3, ssl, statistics, subprocess,
  tarfile, tempfile, typing, unittest, urllib.request, uuid, xml.etree.ElementTree, zipfile"

readonly PYSTART_LOADER=/lib64/ld-linux-x86-64.so.2

workload_describe() { echo "${WORKLOAD_TEXT[$1]}"; }

_compile_source() {
  if [ "${BENCH_SCALE:-full}" = quick ]; then
    printf '#include <patchlevel.h>\nint version(void) { return PY_VERSION_HEX; }\n'
    return
  fi
  cat <<'C'
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <Python.h>
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>

static PyObject *Sum(PyObject *self, PyObject *args) {
  PyArrayObject *array;
  if (!PyArg_ParseTuple(args, "O!", &PyArray_Type, &array)) return NULL;
  double total = 0;
  double *data = (double *)PyArray_DATA(array);
  for (npy_intp i = 0; i < PyArray_SIZE(array); ++i) total += data[i];
  return PyFloat_FromDouble(total);
}

static PyMethodDef kMethods[] = {{"sum", Sum, METH_VARARGS, "sum"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "bench", NULL, -1, kMethods};
PyMODINIT_FUNC PyInit_bench(void) {
  import_array();
  return PyModule_Create(&kModule);
}
C
}

_workload_compile() {
  local root=$1 src=$WORK/scratch/compile.c
  mkdir -p "$WORK/scratch"
  [ -e "$src" ] || _compile_source >"$src"
  gcc -O1 -fPIC -c -w -I "$root/stack/include/python3.11" \
    -I "$root/stack/lib/python3/dist-packages/numpy/core/include" \
    -o "$WORK/scratch/compile.o" "$src"
}

_workload_pystart() {
  local root=$1 imports=$PYSTART_IMPORTS_FULL
  [ "${BENCH_SCALE:-full}" = full ] || imports=$PYSTART_IMPORTS_QUICK
  mkdir -p "$WORK/scratch/mpl"
  # -B: no byte code is written (the mounts are read-only, LOCAL must match);
  # -s and the cleared variables: nothing from the user's setup leaks in.
  # The dynamic loader starts the interpreter because httpdirfs and rclone
  # show files without execute permission; it maps the binary from the file
  # system like exec would.
  env -u PYTHONPATH -u PYTHONSTARTUP -u PYTHONUSERBASE MPLCONFIGDIR="$WORK/scratch/mpl" \
    PYTHONHOME="$root/stack" "$PYSTART_LOADER" "$root/stack/bin/python3.11" -B -s \
    -c "import ${imports//$'\n'/ }" </dev/null
}

# 64 processes, each cat-ing every 64th file of DIR (the list comes from
# the local corpus, which is the same tree, so listing costs no time here).
_workload_readers() {
  local dir=$1 list=$WORK/scratch/readers-${WORKLOAD_TREE//\//_}.txt i pids=()
  mkdir -p "$WORK/scratch"
  [ -e "$list" ] || (cd "$BENCH_TREE/$WORKLOAD_TREE" && find . -type f | LC_ALL=C sort) >"$list"
  for ((i = 0; i < READERS; i++)); do
    awk -v n="$READERS" -v i="$i" 'NR % n == i' "$list" |
      (cd "$dir" && xargs -r -d '\n' cat >/dev/null) &
    pids+=($!)
  done
  # Not a bare wait: daemons the suite started (toxiproxy, httpdirfs) are
  # children of this shell too. Fails if any reader failed.
  local pid rc=0
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  return $rc
}

workload_run() {
  local name=$1 root=$2 dir=$2/$WORKLOAD_TREE
  case $name in
    tar) tar cf - -C "$dir" . | cat >/dev/null ;;
    find) find "$dir" -printf '%p %s %m %T@ %u\n' >/dev/null ;;
    ls) ls -lR "$dir" >/dev/null ;;
    readers) _workload_readers "$dir" ;;
    bigseq) dd if="$root/big/big.bin" of=/dev/null bs=1M status=none ;;
    compile) _workload_compile "$root" ;;
    pystart) _workload_pystart "$root" ;;
    fio) fio_run "$root" ;;
    *) fail "unknown workload '$name'" ;;
  esac
}

# workload_param NAME: what the report shows next to the workload name.
workload_param() {
  case $1 in
    tar | find | ls | readers) echo "$WORKLOAD_TREE" ;;
    fio) echo "$FIO_RW/$FIO_BS" ;;
    *) echo - ;;
  esac
}
