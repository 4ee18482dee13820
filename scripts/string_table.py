#!/usr/bin/env python3
"""string_table.py — Attention Lab build steps that read the string table
(src/core/strings/*.def, see src/core/i18n.h) outside C++.

  string_table.py text STRINGS_DIR OUT.txt   every character of the Chinese column,
        plus GB2312 level 1 (3,755 common hanzi) and CJK punctuation for typed
        tokens: the --text-file for fontTools.subset, so a new string cannot miss a glyph.
  string_table.py cmap OUT.txt NAME=FONT...  the code points each built font maps,
        one "NAME XXXX" line each (hex): the tests check every string against it.
  string_table.py page STRINGS_DIR IN.html OUT.html   the served index.html: the
        page_* entries as JSON for its script ("null /*LAB_PAGE_STRINGS*/"), and
        {{en:KEY}} / {{zh:KEY}} replaced by the HTML-escaped text.
"""
import pathlib
import re
import sys

ENTRY = re.compile(r"LAB_STR\(\s*(\w+)\s*,")
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
ESCAPE = re.compile(rb"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)")


def unescape(body: str) -> str:
    simple = {b"n": b"\n", b"t": b"\t", b'"': b'"', b"\\": b"\\", b"'": b"'", b"?": b"?"}

    def one(m):
        e = m.group(1)
        if e[:1] == b"x":
            return bytes([int(e[1:], 16)])
        if e[:1].isdigit():
            return bytes([int(e, 8)])
        return simple[e]

    return ESCAPE.sub(one, body.encode("utf-8")).decode("utf-8")


def entries(strings_dir):
    """(key, [literal groups]) of every LAB_STR; a group is adjacent literals joined."""
    for path in sorted(pathlib.Path(strings_dir).glob("*.def")):
        text = "\n".join(line for line in path.read_text("utf-8").splitlines() if not line.lstrip().startswith("//"))
        for m in ENTRY.finditer(text):
            groups, current, i = [], "", m.end()
            while i < len(text):
                ch = text[i]
                if ch == '"':
                    lit = LITERAL.match(text, i)
                    current += unescape(lit.group(1))
                    i = lit.end()
                elif ch == ",":
                    groups.append(current)
                    current, i = "", i + 1
                elif ch == ")":
                    groups.append(current)
                    break
                else:
                    i += 1
            yield m.group(1), groups


def gb2312_level1():
    out = []
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                out.append(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return out


def write_text(strings_dir, out):
    chars = set()
    count = 0
    for key, groups in entries(strings_dir):
        if len(groups) != 2:
            sys.exit(f"string_table.py: {key}: expected an English and a Chinese text, found {len(groups)}")
        chars.update(c for c in groups[1] if ord(c) > 0x7E)
        count += 1
    if count == 0:
        sys.exit(f"string_table.py: no LAB_STR entries under {strings_dir}")
    chars.update(gb2312_level1())
    chars.update(chr(c) for c in range(0x3000, 0x3020))   # CJK punctuation: 、。「」《》…
    chars.update(chr(c) for c in range(0xFF01, 0xFF5F))   # full-width forms: ，！？（）：；
    chars.update("\u00b7\u2014\u2026\u201c\u201d\u2018\u2019")
    pathlib.Path(out).write_text("".join(sorted(chars)), "utf-8")
    print(f"string_table.py: {count} strings, {len(chars)} characters -> {out}")


def write_cmap(out, fonts):
    from fontTools.ttLib import TTFont

    lines = []
    for spec in fonts:
        name, path = spec.split("=", 1)
        lines += [f"{name} {cp:04X}" for cp in sorted(TTFont(path).getBestCmap())]
    pathlib.Path(out).write_text("\n".join(lines) + "\n", "ascii")


def write_page(strings_dir, html_in, out):
    import html
    import json

    table = {key: groups for key, groups in entries(strings_dir) if key.startswith("page_")}
    page = pathlib.Path(html_in).read_text("utf-8")
    marker = "null /*LAB_PAGE_STRINGS*/"
    if marker not in page:
        sys.exit(f"string_table.py: {html_in} has no '{marker}'")
    # "</" cannot end the script early: JSON escapes it as "<\/".
    page = page.replace(marker, json.dumps(table, ensure_ascii=False).replace("</", "<\\/"))

    def one(m):
        lang, key = m.group(1), m.group(2)
        if key not in table:
            sys.exit(f"string_table.py: {html_in} uses {{{{{lang}:{key}}}}}, which is not in page.def")
        return html.escape(table[key][0 if lang == "en" else 1])

    page = re.sub(r"\{\{(en|zh):(\w+)\}\}", one, page)
    pathlib.Path(out).write_text(page, "utf-8")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "text":
        write_text(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "page":
        write_page(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) >= 4 and sys.argv[1] == "cmap":
        write_cmap(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
