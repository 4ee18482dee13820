#!/usr/bin/env python3
"""layers.py — the include graph between src/'s folders, checked against their rules.

Every folder under src/ with a README.md that ends in a "folders:" and a "libraries:" line is
a layer; a file belongs to the deepest such folder above it. Every `#include "..."` must be
spelled from src/ (one spelling), name an existing file, and land in the same folder or one
its README lists; every `#include <...>` must belong to a library it lists (std is the C++
and C standard headers; "generated" the headers the build writes, `lab_*.h`). Prints the graph (folder -> folders it includes, with counts) and
each violation as file:line; exits 1 if there is any.

    python3 scripts/layers.py            the graph and the verdict
    python3 scripts/layers.py --dot      the graph in Graphviz dot
"""
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
LIBRARIES = {  # a <header>'s first path part -> its library; anything else is std
    "Eigen": "Eigen", "imgui.h": "imgui", "imgui_internal.h": "imgui", "imgui_impl_glfw.h": "imgui",
    "GLFW": "GLFW", "GL": "GL", "GLES3": "GL", "emscripten": "emscripten", "emscripten.h": "emscripten",
    "nlohmann": "nlohmann", "toml++": "toml++",
}


def read_rules():
    rules = {}
    for root, _, files in os.walk(SRC):
        if "README.md" not in files:
            continue
        text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
        folders = re.search(r"^\s*folders:\s*(.*)$", text, re.M)
        libraries = re.search(r"^\s*libraries:\s*(.*)$", text, re.M)
        if folders and libraries:
            name = os.path.relpath(root, SRC)
            allowed = set(folders.group(1).split()) - {"(none)"}
            rules[name] = (allowed, set(libraries.group(1).split()))
    return rules


def folder_of(rel, rules):
    parts = rel.split("/")[:-1]
    while parts:
        if "/".join(parts) in rules:
            return "/".join(parts)
        parts.pop()
    return None


def check(rules):
    edges, problems = {}, []
    for root, _, files in os.walk(SRC):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp")):
                continue
            rel = os.path.relpath(os.path.join(root, name), SRC)
            me = folder_of(rel, rules)
            if me is None:
                problems.append("%s: in no folder with rules (a README.md with folders: and libraries:)" % rel)
                continue
            allowed, libraries = rules[me]
            lines = open(os.path.join(SRC, rel), encoding="utf-8").read().splitlines()
            for number, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                where = "src/%s:%d" % (rel, number)
                kind, path = m.groups()
                if kind == "<":
                    library = LIBRARIES.get(path.split("/")[0], "std")
                    if library not in libraries:
                        problems.append("%s: <%s> is %s, which %s may not use" % (where, path, library, me))
                    continue
                if path.endswith(".def") and os.path.isfile(os.path.join(root, path)):
                    continue  # a string table's parts, beside it
                if re.fullmatch(r"lab_\w+\.h", path) and not os.path.isfile(os.path.join(SRC, path)):
                    if "generated" not in libraries:  # written by the build into build/*/generated
                        problems.append('%s: "%s" is generated, which %s may not use' % (where, path, me))
                    continue
                if not os.path.isfile(os.path.join(SRC, path)):
                    problems.append('%s: "%s" is not a path from src/' % (where, path))
                    continue
                to = folder_of(path, rules)
                if to == me:
                    continue
                edges[(me, to)] = edges.get((me, to), 0) + 1
                if to not in allowed:
                    problems.append('%s: "%s" is in %s, which %s may not include' % (where, path, to, me))
    return edges, problems


def main():
    rules = read_rules()
    edges, problems = check(rules)
    if "--dot" in sys.argv[1:]:
        print("digraph layers {\n  rankdir=BT;")
        for (a, b), n in sorted(edges.items()):
            print('  "%s" -> "%s" [label=%d];' % (a, b, n))
        print("}")
        return 1 if problems else 0
    for me in sorted(rules):
        outs = ["%s (%d)" % (b, n) for (a, b), n in sorted(edges.items()) if a == me]
        print("%-18s -> %s" % (me, ", ".join(outs) if outs else "-"))
    for p in problems:
        print("FAIL " + p)
    files = sum(1 for r, _, fs in os.walk(SRC) for f in fs if f.endswith((".h", ".cpp")))
    print("%d folders, %d files, %d folder-to-folder edges: %s" %
          (len(rules), files, len(edges), "%d violations" % len(problems) if problems else "every include allowed"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
