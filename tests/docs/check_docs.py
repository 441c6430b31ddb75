#!/usr/bin/env python3
"""Runs every runnable shell block of README.md and docs/*.md, so the docs
cannot drift from what hpo does.

Usage: check_docs.py SOURCE_ROOT HPO_BINARY [HPO_TRAINER_BINARY]

The convention (docs/index.md explains it to writers):
  - A fenced block with the info string `sh` is run; `console`, `text`,
    `yaml`, `json`, `python` and the rest are not.
  - `<!-- docs-check: skip: REASON -->` on the line before an `sh` block
    leaves it out; the check prints where and why.

Each file runs in a fresh copy of the source tree (no build outputs) with
its own build/bin: a copy of hpo, and an hpo-trainer that runs
examples/objective.py for trials (so the shipped studies take seconds) and
the real hpo-trainer for anything else (--help, --make-data). build/bin
comes first in PATH, so `hpo` and `build/bin/hpo` both work. Commands run
one at a time with bash from the copy's root and must exit 0; they share
files, not shell state. The first failure ends its file: it is reported
with the file, the line, the command and its stderr.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)")
DIRECTIVE = re.compile(r"^<!--\s*docs-check:\s*(.*?)\s*-->\s*$")
COMMAND_TIMEOUT_S = 120
# What the copy leaves out: build outputs, fetched packages, and what running
# hpo in the checkout leaves there (the docs start from no study).
NOT_COPIED = shutil.ignore_patterns(".git", "build", "build-*", "node_modules", "__pycache__",
                                    "*.db", "*.db-wal", "*.db-shm", "runs", "report.html")
# Settings of the user's shell that would change what the commands do.
UNSET = ("HPO_STORAGE", "HPO_STUDY_PATH", "HPO_GPU_PROFILE_PATH", "GPU_PROFILE", "CUDA_VISIBLE_DEVICES")

STAND_IN_TRAINER = """#!/bin/sh
# The docs check's hpo-trainer: hpo's trials run the example trainer (hpo
# sets HPO_REPORT_FILE for them), served where the study serves them;
# anything else runs the real hpo-trainer.
if [ -n "$HPO_REPORT_FILE" ] && [ "$HPO_SERVE" = 1 ]; then exec /usr/bin/python3 {serve} {example}; fi
if [ -n "$HPO_REPORT_FILE" ]; then exec /usr/bin/python3 {example}; fi
if [ -z "{real}" ]; then echo 'hpo-trainer was not built (HPO_BUILD_TRAINER=OFF)' >&2; exit 2; fi
exec "{real}" "$@"
"""


class Block:
    def __init__(self, path, line, info, skip, lines):
        self.path, self.line, self.info, self.skip, self.lines = path, line, info, skip, lines


def parse_blocks(path, name):
    """Fenced blocks of a Markdown file, with the directive before each;
    name is how messages call the file."""
    blocks, directive, fence, start = [], None, None, 0
    with open(path, encoding="utf-8") as f:
        text = f.read().splitlines()
    for n, line in enumerate(text, 1):
        if fence is None:
            m = FENCE.match(line)
            if m:
                fence, info, start, body = m.group(1), m.group(2), n, []
                skip, directive = directive, None
                continue
            d = DIRECTIVE.match(line)
            if d:
                directive = parse_directive(name, n, d.group(1))
            elif line.strip():
                directive = None
        elif line.startswith(fence) and not line[len(fence):].strip():
            blocks.append(Block(name, start, info, skip, body))
            fence = None
        else:
            body.append((n, line))
    if fence is not None:
        raise SystemExit(f"{name}:{start}: the block opened here is never closed")
    return blocks


def parse_directive(name, line, text):
    """The reason in `skip: REASON`; anything else is a writer's mistake."""
    m = re.fullmatch(r"skip:\s*(\S.*)", text)
    if not m:
        raise SystemExit(f"{name}:{line}: expected '<!-- docs-check: skip: REASON -->', got '{text}'")
    return m.group(1)


def commands(block):
    """(line, command) pairs: lines joined until bash can parse them."""
    result, pending, first = [], [], 0
    for n, line in block.lines:
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            first = n
        pending.append(line)
        text = "\n".join(pending)
        if text.endswith("\\"):
            continue
        if subprocess.run(["bash", "-n", "-c", text], capture_output=True).returncode == 0:
            result.append((first, text))
            pending = []
    if pending:
        raise SystemExit(f"{block.path}:{first}: bash cannot parse this command:\n{chr(10).join(pending)}")
    return result


def make_work_dir(root, tmp, hpo, trainer):
    work = os.path.join(tmp, "project")
    shutil.copytree(root, work, ignore=NOT_COPIED, symlinks=True)
    bin_dir = os.path.join(work, "build", "bin")
    os.makedirs(bin_dir)
    # A copy, not a link: hpo looks for its trainer beside /proc/self/exe.
    shutil.copy2(hpo, os.path.join(bin_dir, "hpo"))
    stand_in = os.path.join(bin_dir, "hpo-trainer")
    with open(stand_in, "w") as f:
        f.write(STAND_IN_TRAINER.format(example=os.path.join(work, "examples", "objective.py"),
                                        serve=os.path.join(work, "examples", "serve.py"), real=trainer))
    os.chmod(stand_in, 0o755)
    return work


def environment(work):
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env["PATH"] = os.path.join(work, "build", "bin") + os.pathsep + env.get("PATH", "")
    return env


def check_file(path, root, hpo, trainer):
    """Runs path's runnable blocks; returns the number of failures (0 or 1)."""
    name = os.path.relpath(path, root)
    blocks = [b for b in parse_blocks(path, name) if b.info == "sh"]
    for b in blocks:
        if b.skip:
            print(f"{name}:{b.line}: not run: {b.skip}")
    todo = [(line, cmd) for b in blocks if not b.skip for line, cmd in commands(b)]
    if not todo:
        return 0
    with tempfile.TemporaryDirectory(prefix="hpo-docs-") as tmp:
        work = make_work_dir(root, tmp, hpo, trainer)
        env = environment(work)
        for line, cmd in todo:
            print(f"{name}:{line}: $ {cmd}", flush=True)
            try:
                r = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                print(f"FAILED {name}:{line}: '{cmd}' ran past {COMMAND_TIMEOUT_S} s")
                return 1
            if r.returncode != 0:
                print(f"FAILED {name}:{line}: '{cmd}' exited {r.returncode}; its stderr:\n{r.stderr.rstrip()}")
                return 1
    return 0


# A file shown whole: "`examples/objective.py`:" then a fenced block.
SHOWN_FILE = re.compile(r"^`([\w./-]+)`:\n\n```\w*\n(.*?)^```", re.M | re.S)


def check_shown_files(path, root):
    """A block that shows a file of the repository whole must be that file as it is; returns the
    number of failures."""
    name = os.path.relpath(path, root)
    failures = 0
    for m in SHOWN_FILE.finditer(open(path, encoding="utf-8").read()):
        shown = os.path.join(root, m.group(1))
        if not os.path.isfile(shown):
            # Renamed or deleted: the copy in the docs would go stale unchecked.
            print(f"FAILED {name}: it shows {m.group(1)}, which is not a file of the repository")
            failures += 1
        elif open(shown, encoding="utf-8").read() != m.group(2):
            print(f"FAILED {name}: its copy of {m.group(1)} differs from the file")
            failures += 1
    return failures


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit("usage: check_docs.py SOURCE_ROOT HPO_BINARY [HPO_TRAINER_BINARY]")
    root, hpo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    trainer = os.path.abspath(sys.argv[3]) if len(sys.argv) == 4 else ""
    files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    failures = sum(check_file(f, root, hpo, trainer) + check_shown_files(f, root) for f in files)
    if failures:
        raise SystemExit(f"docs check: {failures} file(s) have a command that failed")
    print(f"docs check: every runnable command in {len(files)} files passed")


if __name__ == "__main__":
    main()
