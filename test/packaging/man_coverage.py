#!/usr/bin/env python3
"""Checks that a man page documents what a program's --help lists.

  man_coverage.py BIN_DIR MAN_DIR

For each program the packages install, reads its help (cvmfs_server: the
subcommands of `--help` and the options of each `SUBCOMMAND --help`, nested
subcommands included; cvmfs_config: its commands and their options;
cvmfs_talk: its options and each command phrase; cvmfs2 and mount.cvmfs:
their options), renders the man page with `man --warnings -l` in the C
locale, and reports every item the rendered page lacks. For cvmfs_server an
option counts only inside the section of its subcommand (the .SS heading
"cvmfs_server SUB"). Any warning of man(1)/groff is a failure too.
Prints one line per problem; exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

PAGES = {
    "cvmfs2": "cvmfs2.8",
    "mount.cvmfs": "mount.cvmfs.8",
    "cvmfs_config": "cvmfs_config.8",
    "cvmfs_talk": "cvmfs_talk.1",
    "cvmfs_server": "cvmfs_server.8",
    "cvmfs_gateway": "cvmfs_gateway.8",
    "cvmfs_swissknife": "cvmfs_swissknife.1",
}
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.stdout + p.stderr


def render(page, problems):
    env = dict(os.environ, LC_ALL="C", MANWIDTH="200")
    p = subprocess.run(["man", "--warnings", "-l", page], capture_output=True,
                       text=True, env=env)
    if p.returncode != 0:
        problems.append(f"{page}: man failed: {p.stderr.strip()}")
    for line in p.stderr.splitlines():
        problems.append(f"{page}: warning: {line}")
    # Drop overstriking, if any, and join hyphenated line breaks.
    text = re.sub(r".\x08", "", p.stdout)
    return re.sub(r"-\n\s+", "-", text)


def has_word(text, word):
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text)


def help_options(help_text):
    """Options (-x, --long) defined in the help's option lines."""
    found = []
    for line in help_text.splitlines():
        m = re.match(r"\s+(-[^\s]+)", line)
        if not m:
            continue
        for opt in m.group(1).split(","):
            opt = opt.strip()
            if opt and opt not in ("-h", "--help") and OPTION.fullmatch(opt):
                found.append(opt)
    return found


def section_lines(help_text, title):
    lines, inside = [], False
    for line in help_text.splitlines():
        if line.startswith(title):
            inside = True
            continue
        if inside and (not line.strip() or not line.startswith(" ")):
            break  # the list ends at its first blank line
        if inside:
            lines.append(line)
    return lines


def check_server(bin_dir, text, problems):
    # Sections of the rendered page: heading "cvmfs_server SUB [SUB2]".
    sections, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^   cvmfs_server ((?:[a-z][\w-]* ?)+)$", line)
        if m:
            current = m.group(1).strip()
            sections[current] = ""
        elif current is not None:
            sections[current] += line + "\n"

    def walk(path):
        h = run([os.path.join(bin_dir, "cvmfs_server")] + path + ["--help"])
        name = " ".join(path)
        if path:
            if name not in sections:
                problems.append(f"cvmfs_server.8: no section for subcommand '{name}'")
                return
            for opt in help_options(h):
                if not has_word(sections[name], opt):
                    problems.append(
                        f"cvmfs_server.8: option {opt} of '{name}' undocumented")
        for line in section_lines(h, "Subcommands:"):
            walk(path + [line.split()[0]])

    walk([])


def main():
    bin_dir, man_dir = sys.argv[1], sys.argv[2]
    problems = []
    for prog, page in PAGES.items():
        text = render(os.path.join(man_dir, page), problems)
        exe = os.path.join(bin_dir, prog)
        if prog == "cvmfs_server":
            check_server(bin_dir, text, problems)
            continue
        # mount.cvmfs prints its usage when called without arguments.
        h = run([exe] if prog == "mount.cvmfs" else [exe, "--help"])
        items = []
        if prog == "cvmfs_config":
            for line in section_lines(h, "Commands:"):
                words = line.split()
                items.append(words[0])
                items += OPTION.findall(" ".join(words[1:]))
                items += re.findall(r"\[([a-z]+)\]", line)
        elif prog == "cvmfs_talk":
            items += help_options(h)
            commands = " ".join(h.split("Commands:", 1)[1].split())
            for phrase in commands.split("|"):
                words = [w for w in phrase.split() if not w.startswith(("<", "["))]
                if words:
                    items.append(" ".join(words))
        elif prog == "cvmfs_swissknife":  # its one subcommand, notify
            items += ["notify"] + help_options(run([exe, "notify", "--help"]))
        else:
            items += OPTION.findall(h.split("\n", 1)[0]) + help_options(h)
        flat = " ".join(text.split())
        for item in dict.fromkeys(items):
            if not has_word(flat, item):
                problems.append(f"{page}: '{item}' from `{prog} --help` undocumented")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
