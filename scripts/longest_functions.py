#!/usr/bin/env python3
"""longest_functions.py — the longest function definitions in src/ (the brief aims at <= 80 lines).

A definition is a line at column 0 that ends a signature with "{" and runs to the next "}" at
column 0 (the code's own style: namespaces are not indented). A reading aid, not a verdict.

    python3 scripts/longest_functions.py [N]     the N longest (default 10)
"""
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
SIGNATURE = re.compile(r"^[A-Za-z].*\)\s*(const)?\s*\{\s*$")


def definitions():
    for root, _, files in os.walk(SRC):
        for name in files:
            if not name.endswith(".cpp"):
                continue
            path = os.path.join(root, name)
            lines = open(path, encoding="utf-8").read().split("\n")
            i = 0
            while i < len(lines):
                if SIGNATURE.match(lines[i]) and not lines[i].startswith(("namespace", "struct", "class", "enum", "extern")):
                    end = i + 1
                    while end < len(lines) and not lines[end].startswith("}"):
                        end += 1
                    yield end - i + 1, os.path.relpath(path, os.path.join(SRC, "..")), i + 1, lines[i].strip()
                    i = end
                i += 1


def main():
    most = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    found = sorted(definitions(), reverse=True)
    for length, path, line, signature in found[:most]:
        print("%4d lines  %s:%d  %s" % (length, path, line, signature[:100]))
    print("%d definitions, %d over 80 lines" % (len(found), sum(1 for f in found if f[0] > 80)))


if __name__ == "__main__":
    main()
