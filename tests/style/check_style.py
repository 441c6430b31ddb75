#!/usr/bin/env python3
"""The tree's C++ style, checked: every tracked .cc/.h file is formatted as
.clang-format says (Google style, 100 columns), and every header has the one
include-guard convention, HPO_<path>_ (hpo/run/oom.h -> HPO_RUN_OOM_H_,
trainer/cv.h -> HPO_TRAINER_CV_H_), so that a moved file's stale guard is
caught rather than silently colliding; and no two files of one unity-built
target define the same file-local name (unity_names.py).

Usage: check_style.py SOURCE_DIR [--fix]
  --fix  rewrites the files in place (clang-format -i, guards renamed).
Exits 1 naming each file that is off, with the command that fixes it.
"""
import os
import re
import subprocess
import sys

import unity_names


def tracked_sources(root):
    git = subprocess.run(["git", "-C", root, "ls-files", "*.cc", "*.h"], capture_output=True,
                         text=True)
    if git.returncode == 0:
        out = git.stdout.split()
    else:  # a copy without .git (the docs check's): the sources, not build outputs
        out = []
        for top, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build")) and d != "node_modules")
            rel = os.path.relpath(top, root)
            out += [os.path.normpath(os.path.join(rel, n)) for n in sorted(names) if n.endswith((".cc", ".h"))]
    # The fuzzer's corpus is data, not code.
    return [f for f in out if "/corpus/" not in f]


def guard_of(path):
    rel = path[len("hpo/"):] if path.startswith("hpo/") else path
    return "HPO_" + re.sub(r"[^A-Za-z0-9]", "_", rel).upper() + "_"


GUARD = re.compile(r"^#ifndef (\w+)\n#define (\w+)\n", re.M)


def check_guard(root, path, fix):
    full = os.path.join(root, path)
    text = open(full).read()
    want = guard_of(path)
    m = GUARD.search(text)
    if m and m.group(1) == want == m.group(2) and text.rstrip().endswith(f"#endif  // {want}"):
        return None
    if not fix:
        found = m.group(1) if m else ("#pragma once" if "#pragma once" in text else "none")
        return f"{path}: include guard is {found}; expected #ifndef/#define {want} ... #endif  // {want}"
    if m:
        old = m.group(1)
        text = text.replace(f"#ifndef {old}\n#define {old}\n", f"#ifndef {want}\n#define {want}\n", 1)
        body, _, tail = text.rstrip().rpartition("#endif")
        text = body + f"#endif  // {want}\n"
    else:
        text = text.replace("#pragma once\n", f"#ifndef {want}\n#define {want}\n", 1)
        text = text.rstrip() + f"\n\n#endif  // {want}\n"
    open(full, "w").write(text)
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root, fix = sys.argv[1], "--fix" in sys.argv[2:]
    files = tracked_sources(root)
    problems = [p for p in (check_guard(root, f, fix) for f in files if f.endswith(".h")) if p]
    problems += unity_names.collisions(root, files)
    fmt = ["clang-format", "--style=file"]
    if fix:
        subprocess.run(fmt + ["-i"] + files, cwd=root, check=True)
    else:
        # One clang-format for all files; it names each violation FILE:LINE:COL.
        r = subprocess.run(fmt + ["--dry-run", "--Werror"] + files, cwd=root, capture_output=True,
                           text=True)
        off = {}
        for line in r.stderr.splitlines():
            m = re.match(r"(\S+?):(\d+):\d+: error", line)
            if m:
                off.setdefault(m.group(1), m.group(2))
        if r.returncode != 0 and not off:
            problems.append(f"clang-format failed: {r.stderr.strip()[:500]}")
        problems += [f"{f}: not formatted (first at line {line})" for f, line in sorted(off.items())]
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s); formatting and guards are fixed by: "
              "tests/style/check_style.py . --fix")
        return 1
    print(f"{len(files)} C++ files formatted and guarded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
