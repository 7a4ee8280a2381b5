#!/usr/bin/env python3
"""Size and layering figures of the source tree, for reviews of its structure.

  test/tools/code_metrics.py [ROOT]

Prints, for the production C++ sources (tests, test support and benchmarks
left out):
  - file sizes: count, median and a histogram of lines per file;
  - function sizes: a histogram of lines per function definition (from
    Universal Ctags' end lines) and every function over 100 lines;
  - includes: project includes that cross top-level folders, the folder
    graph they draw, and the includes that close a cycle in it (a folder
    reached back from a folder it includes);
  - tests: the number of sleep_for calls in unit tests.
Duplicated blocks are not counted here; any clone detector run over the tree
gives them.
"""

import collections
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), '..', '..'))
SKIP_DIRS = {'.git', 'build', 'test', 'testing'}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def is_test(path):
  base = os.path.basename(path)
  return (base.endswith('_test.cc') or base.endswith('_test_util.h') or
          base.endswith('_test.h'))


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


def main():
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
