#!/usr/bin/env python3
"""Size and layering figures of the source tree, for reviews of its structure.

  test/tools/code_metrics.py [ROOT]

Prints, for the production C++ sources (tests, test support and benchmarks
left out):
  - file sizes: count, median and a histogram of lines per file;
  - function sizes: a histogram of lines per function definition (from
    Universal Ctags' end lines) and every function over 100 lines;
  - includes: project includes that cross top-level folders, the folder
    graph they draw, the includes that close a cycle in it (a folder
    reached back from a folder it includes), and the includes that go
    against the library graph (LIBRARY_GRAPH below, as the CMakeLists.txt
    files link the libraries; unit tests may also reach what their test
    binary links);
  - tests: the number of sleep_for calls in unit tests.
Duplicated blocks are not counted here; any clone detector run over the tree
gives them.

  test/tools/code_metrics.py --check-layering [ROOT]

only checks the includes of every C++ file (tests included) against the
library graph, prints each that goes against it, and exits 1 if any does
(test/style/layering_test.sh).
"""

import collections
import os
import re
import statistics
import subprocess
import sys

CHECK = '--check-layering' in sys.argv[1:]
ARGS = [a for a in sys.argv[1:] if a != '--check-layering']
ROOT = os.path.abspath(ARGS[0] if ARGS else
                       os.path.join(os.path.dirname(__file__), '..', '..'))

# Which top-level folders the code of a folder may include: each folder is a
# library (client/ also holds cvmfs_fuse and cvmfs_client_tools, which build
# on cvmfs_client), programs/ holds the executables over all of them.
LIBRARY_GRAPH = {
    'cvmfs': {'cvmfs'},
    'testing': {'testing', 'cvmfs'},
    'cache': {'cache', 'cvmfs'},
    'client': {'client', 'cache', 'cvmfs'},
    'publisher': {'publisher', 'cvmfs'},
    'server': {'server', 'publisher', 'cvmfs'},  # server/gateway commits
    'programs': {'programs', 'client', 'cache', 'publisher', 'server',
                 'cvmfs'},
}
# What a folder's unit-test binary links beyond the folder's own graph
# (CMakeLists.txt: the LIBS of cvmfs_add_tests).
TEST_LINKS = {
    'client': {'testing', 'publisher'},
}
SKIP_DIRS = {'.git', 'build', 'test', 'testing'}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def is_test(path):
  # Fuzz targets (foo_fuzzer.cc, test/fuzz/) are test code: they link the
  # test support and never reach production.
  base = os.path.basename(path)
  return (base.endswith('_test.cc') or base.endswith('_test_util.h') or
          base.endswith('_test.h') or base.endswith('_fuzzer.cc'))


def sources(root):
  for dirpath, dirnames, filenames in os.walk(root):
    rel_dir = os.path.relpath(dirpath, root)
    top = rel_dir.split(os.sep)[0]
    if top in SKIP_DIRS or (rel_dir != '.' and top.startswith('build')):
      dirnames[:] = []
      continue
    dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
    for name in filenames:
      if name.endswith(('.cc', '.h')):
        path = os.path.relpath(os.path.join(dirpath, name), root)
        if not is_test(path):
          yield path


def histogram(values, edges):
  counts = collections.Counter()
  for v in values:
    for low, high in edges:
      if low <= v < high:
        counts[(low, high)] += 1
        break
  rows = []
  for low, high in edges:
    label = f'{low}+' if high == float('inf') else f'{low}-{high - 1}'
    rows.append(f'  {label:>9}: {counts[(low, high)]}')
  return '\n'.join(rows)


def line_count(path):
  with open(os.path.join(ROOT, path), encoding='utf-8', errors='replace') as f:
    return sum(1 for _ in f)


def functions(files):
  cmd = ['ctags', '-x', '--kinds-C++=f', '--fields=+ne', '--language-force=C++',
         '--_xformat=%{input}\t%{line}\t%{end}\t%{scope}::%{name}'] + files
  out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                       check=True).stdout
  result = []
  for row in out.splitlines():
    path, line, end, name = row.split('\t')
    if end and end != '-':
      result.append((int(end) - int(line) + 1, path, int(line),
                     name.lstrip(':')))
  return result


def top_folder(path):
  return path.split('/')[0] if '/' in path else '.'


def include_graph(files):
  edges = collections.Counter()
  crossing = 0
  total = 0
  known = set(files)
  for path in files:
    with open(os.path.join(ROOT, path), encoding='utf-8',
              errors='replace') as f:
      for line in f:
        m = INCLUDE.match(line)
        if not m:
          continue
        target = m.group(1)
        if not os.path.exists(os.path.join(ROOT, target)):
          target = os.path.normpath(os.path.join(os.path.dirname(path),
                                                 target))
        if target not in known and not os.path.exists(
            os.path.join(ROOT, target)):
          continue  # generated or system header
        total += 1
        if os.path.dirname(target) != os.path.dirname(path):
          crossing += 1
        a, b = top_folder(path), top_folder(target)
        if a != b:
          edges[(a, b)] += 1
  return total, crossing, edges


def reaches(edges, start, goal):
  seen, todo = set(), [start]
  while todo:
    node = todo.pop()
    if node == goal:
      return True
    if node in seen:
      continue
    seen.add(node)
    todo.extend(b for (a, b) in edges if a == node)
  return False


def all_sources(root):
  out = subprocess.run(['git', 'ls-files', '*.cc', '*.h'], cwd=root,
                       capture_output=True, text=True, check=True).stdout
  return [f for f in out.split() if top_folder(f) in LIBRARY_GRAPH]


def layering_violations(files):
  for path in files:
    folder = top_folder(path)
    allowed = set(LIBRARY_GRAPH[folder])
    if is_test(path):
      allowed |= {'testing'} | TEST_LINKS.get(folder, set())
    with open(os.path.join(ROOT, path), encoding='utf-8',
              errors='replace') as f:
      for number, line in enumerate(f, 1):
        m = INCLUDE.match(line)
        if not m or not os.path.exists(os.path.join(ROOT, m.group(1))):
          continue
        target = top_folder(m.group(1))
        if target in LIBRARY_GRAPH and target not in allowed:
          yield f'{path}:{number}: includes {m.group(1)} ({folder} does ' \
                f'not link {target})'


def main():
  if CHECK:
    bad = list(layering_violations(all_sources(ROOT)))
    for row in bad:
      print(row)
    print(f'includes against the library graph: {len(bad)}')
    sys.exit(1 if bad else 0)
  files = sorted(sources(ROOT))
  sizes = [line_count(f) for f in files]
  print(f'production files: {len(files)}, lines: {sum(sizes)}, '
        f'median lines per file: {statistics.median(sizes):.0f}')
  print(histogram(sizes, [(0, 50), (50, 100), (100, 200), (200, 300),
                          (300, 500), (500, float('inf'))]))

  funcs = functions(files)
  print(f'functions: {len(funcs)}, median lines: '
        f'{statistics.median(f[0] for f in funcs):.0f}')
  print(histogram([f[0] for f in funcs], [(0, 25), (25, 50), (50, 100),
                                          (100, float('inf'))]))
  for size, path, line, name in sorted(funcs, reverse=True):
    if size > 100:
      print(f'  over 100: {size} lines {path}:{line} {name}')

  total, crossing, edges = include_graph(files)
  print(f'project includes: {total}, crossing folders: {crossing}, '
        f'crossing top-level folders: {sum(edges.values())}')
  back = 0
  for (a, b), n in sorted(edges.items()):
    cycle = reaches(edges, b, a)
    back += n if cycle else 0
    print(f'  {a} -> {b}: {n}{"  (cycle)" if cycle else ""}')
  print(f'includes on a folder cycle: {back}')
  against = sum(1 for _ in layering_violations(files))
  print(f'includes against the library graph: {against}')

  sleeps = 0
  for dirpath, dirnames, filenames in os.walk(ROOT):
    dirnames[:] = [d for d in dirnames
                   if d != '.git' and not d.startswith('build')]
    for name in filenames:
      if name.endswith('_test.cc'):
        with open(os.path.join(dirpath, name), encoding='utf-8') as f:
          sleeps += f.read().count('sleep_for')
  print(f'sleep_for in unit tests: {sleeps}')


if __name__ == '__main__':
  main()
