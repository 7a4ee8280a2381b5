#!/usr/bin/env python3
"""Puts the summary of a benchmark report into README.md.

    test/bench/readme_summary.py RESULTS_DIR [README]

Replaces what stands between the markers
    <!-- bench-summary:start --> and <!-- bench-summary:end -->
in README (default: README.md of the source tree) with a line naming the
run (date, commit, scale, repetitions, with a link to its report.md) and
the report's "Summary" section (its tables and plain statements of where
we are slower). RESULTS_DIR is a folder that test/bench/run wrote, inside
the source tree so that the link works on GitHub and in a clone.
"""
import os
import re
import sys

START = "<!-- bench-summary:start -->"
END = "<!-- bench-summary:end -->"


def summary_section(report_text):
    """The lines of the '## Summary' section, without its heading."""
    m = re.search(r"^## Summary\n(.*?)(?=^## |\Z)", report_text, re.S | re.M)
    if not m:
        raise ValueError("the report has no '## Summary' section")
    return m.group(1).strip()


def run_line(report_text, link):
    first = report_text.splitlines()[0] if report_text else ""
    m = re.match(r"# Benchmark report (.*), commit (\S+)", first)
    if not m:
        raise ValueError("the report does not start with '# Benchmark report'")
    scale = re.search(r"Scale \*\*(\w+)\*\*, (\d+) repetition", report_text)
    if scale:
        n = int(scale.group(2))
        what = f"{scale.group(1)} run, {n} repetition{'s' if n != 1 else ''}"
    else:
        what = "run"
    return (f"Latest {what}: {m.group(1)}, commit `{m.group(2)}` "
            f"([report]({link}), with every table and plot).")


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results = os.path.abspath(argv[1])
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    readme = os.path.abspath(argv[2]) if len(argv) == 3 else os.path.join(root, "README.md")
    report_path = os.path.join(results, "report.md")
    try:
        with open(report_path) as f:
            report = f.read()
        with open(readme) as f:
            text = f.read()
    except OSError as e:
        print(f"readme_summary: {e}", file=sys.stderr)
        return 1
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        print(f"readme_summary: {readme} needs one {START} ... {END} block", file=sys.stderr)
        return 1
    link = os.path.relpath(report_path, os.path.dirname(readme))
    if link.startswith(".."):
        print(f"readme_summary: {results} is not below {os.path.dirname(readme)}; "
              "copy the results folder into test/bench/results/ first", file=sys.stderr)
        return 1
    try:
        block = run_line(report, link) + "\n\n" + summary_section(report)
    except ValueError as e:
        print(f"readme_summary: {report_path}: {e}", file=sys.stderr)
        return 1
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    with open(readme + ".tmp", "w") as f:
        f.write(head + START + "\n" + block + "\n" + END + tail)
    os.replace(readme + ".tmp", readme)
    print(f"readme_summary: {readme} now shows {link}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
