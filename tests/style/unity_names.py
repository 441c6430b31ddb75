"""File-local names that a unity build would collide.

The sanitizer and fuzzer builds (tools/test.sh) compile each library's
sources, and the unit tests', 8 files at a time as one translation unit.
There, two files' anonymous namespaces (and file-scope statics) are one:
the same function signature, type, alias or constant defined in both is a
redefinition. Which files share a batch moves whenever a file is added, so
a clash passes the Release build and fails only a clean clone's CI later.
This finds, per target (its sources read from the CMakeLists.txt that
adds it), every file-local name defined in more than one of its files:
functions by name and parameter types (an overload is fine), the rest by
name.

The trainer's directories are left out: they are never unity-built (they
need LibTorch, which the sanitizer build leaves out).
"""
import collections
import glob
import os
import re

UNITY_BUILT = ("hpo/", "samplers/", "pruners/", "tests/unit/", "tests/fuzz/")

FUNCTION = re.compile(
    r"^(?:static\s+|inline\s+|template\s*<[^>]*>\s*)*"
    r"(?!return\b|else\b|if\b|for\b|while\b|switch\b|namespace\b)"
    r"[A-Za-z_][\w:<>,\s\*&]*?[\s\*&](\w+)\(([^;{]*?)\)\s*(?:const\s*)?(?:noexcept\s*)?"
    r"(?:->[^{;]*)?\{", re.M | re.S)
OTHER = [
    re.compile(r"^(?:struct|class|enum class|enum|union)\s+(\w+)\b(?!;)", re.M),
    re.compile(r"^using\s+(\w+)\s*=", re.M),
    re.compile(r"^(?:static\s+)?(?:inline\s+)?(?:constexpr|const)\s[^=;(]*?\b(\w+)(?:\[\w*\])?\s*[={]",
               re.M),
]


def split_top_level(params):
    depth, current, out = 0, "", []
    for c in params:
        depth += c in "<([{"
        depth -= c in ">)]}"
        if c == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += c
    return out + [current] if current.strip() else out


def parameter_types(params):
    """'const std::string& s, int n = 3' -> 'const std::string&, int'."""
    types = []
    for p in split_top_level(params):
        p = re.sub(r"\s+", " ", p.split("=")[0]).strip()
        if len(re.findall(r"\w+", p)) > 1:  # a type and a name: drop the name
            p = re.sub(r"\s*\b\w+$", "", p)
        types.append(p)
    return ", ".join(types)


def file_local_code(text):
    """The bodies of a file's anonymous namespaces, its file-scope statics, and
    its namespace-scope constants (const is file-local in C++ too)."""
    for m in re.finditer(r"^namespace \{\n", text, re.M):
        end = text.find("\n}  // namespace", m.end())
        yield text[m.end():end if end > 0 else len(text)]
    yield "\n".join(line for line in text.splitlines()
                    if line.startswith(("static ", "constexpr ", "const ")))


def local_names(text):
    names = set()
    for code in file_local_code(text):
        names |= {f"{m.group(1)}({parameter_types(m.group(2))})" for m in FUNCTION.finditer(code)}
        for rx in OTHER:
            names |= {m.group(1) for m in rx.finditer(code)}
    return names


TARGET = re.compile(r"\badd_(?:library|executable)\(\s*(\w+)([^)]*)\)", re.S)
GLOB = re.compile(r"\bfile\(\s*GLOB\s+(\w+)((?:\s+[^\s)]+)+)\s*\)")


def cmake_targets(root):
    """{target: [source, ...]}, paths relative to root, for every target that a
    CMakeLists.txt under a unity-built directory adds, its globbed sources too."""
    targets = {}
    for top in sorted({u.split("/")[0] for u in UNITY_BUILT}):
        for cmake in sorted(glob.glob(os.path.join(root, top, "**", "CMakeLists.txt"), recursive=True)):
            here = os.path.abspath(os.path.dirname(cmake))
            text = re.sub(r"#.*", "", open(cmake).read())
            globbed = {}
            for m in GLOB.finditer(text):
                patterns = [w.replace("${CMAKE_CURRENT_SOURCE_DIR}", here)
                            for w in m.group(2).split() if w != "CONFIGURE_DEPENDS"]
                globbed[m.group(1)] = [f for pat in patterns
                                       for f in glob.glob(pat if os.path.isabs(pat) else os.path.join(here, pat))]
            for m in TARGET.finditer(text):
                sources = []
                for word in m.group(2).split():
                    var = re.fullmatch(r"\$\{(\w+)\}", word)
                    if var:
                        sources += globbed.get(var.group(1), [])
                    elif word.endswith(".cc"):
                        sources.append(os.path.join(here, word))
                targets[m.group(1)] = sorted(os.path.relpath(f, root) for f in sources)
    return targets


def collisions(root, files):
    """One message per name defined file-locally in two files of one target."""
    tracked = {f for f in files if f.endswith(".cc") and f.startswith(UNITY_BUILT)}
    where = collections.defaultdict(list)
    targets = cmake_targets(root)
    # A source this reading of CMake misses (set(), target_sources, a
    # recursive glob) would go unchecked: say so rather than go blind.
    covered = {f for sources in targets.values() for f in sources}
    unread = [f"{f}: in no target that tests/style/unity_names.py reads from CMakeLists.txt "
              f"(add_library/add_executable lists and file(GLOB)), so it is not checked for "
              f"unity-build clashes; list it there, or teach the check" for f in sorted(tracked - covered)]
    for target, sources in targets.items():
        for f in sources:
            if f in tracked:
                for name in local_names(open(os.path.join(root, f)).read()):
                    where[(target, name)].append(f)
    return unread + [f"{', '.join(sorted(fs))}: each defines {name} file-locally; a unity build puts "
                     f"them in one translation unit, where that is a redefinition (rename one, or "
                     f"share one)" for (_, name), fs in sorted(where.items()) if len(fs) > 1]
