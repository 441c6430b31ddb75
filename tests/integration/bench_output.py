#!/usr/bin/python3
"""Runs a benchmark at a smoke-test size and fails unless it exits 0 and its
output has every line the docs quote from it (CTest's PASS_REGULAR_EXPRESSION
passes on any one pattern and ignores the exit status, so it cannot check this).

Usage: bench_output.py [--fails] --expect REGEX [--expect REGEX ...] -- COMMAND [ARG ...]
Each REGEX must match somewhere in the output (re.MULTILINE). With --fails the
command must exit non-zero instead (a bench refusing bad input).
"""
import argparse
import re
import subprocess
import sys


def main():
    if "--" not in sys.argv:
        sys.exit(__doc__)
    split = sys.argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--expect", action="append", default=[], help="a regex the output must match")
    ap.add_argument("--fails", action="store_true", help="the command must exit non-zero")
    args = ap.parse_args(sys.argv[1:split])
    command = sys.argv[split + 1:]
    p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout)
    failed = [f"exit status {p.returncode}"] if (p.returncode != 0) != args.fails else []
    failed += [f"no line matches /{e}/" for e in args.expect if not re.search(e, p.stdout, re.MULTILINE)]
    for f in failed:
        print(f"bench_output: {' '.join(command[:2])}: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
