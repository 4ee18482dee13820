#!/usr/bin/env python3
"""string_table.py — Attention Lab build steps that read the string tables outside C++:
the core's (src/base/strings/*.def, see src/base/i18n.h) and the app's
(src/app/data/strings/*.def, see src/app/data/ui_text.h).

  string_table.py text OUT.txt STRINGS_DIR...   every character of the Chinese column of
        every table, plus GB2312 levels 1 and 2 (6,763 hanzi: 3,755 common + 3,008 less
        common, e.g. 摞, 阱) and CJK punctuation for typed tokens: the --text-file for
        fontTools.subset, so a new string cannot miss a glyph.
  string_table.py gb2312 OUT.txt   the 6,763 hanzi of GB2312 as hex code points, one a line
        (Python's gb2312 codec): the font test checks the subset holds every one.
  string_table.py cmap OUT.txt NAME=FONT...  the code points each built font maps,
        one "NAME XXXX" line each (hex): the tests check every string against it.
  string_table.py page STRINGS_DIR IN.html OUT.html   the served index.html: the
        page_* entries (src/app/data/strings/page.def) as JSON for its script
        ("null /*LAB_PAGE_STRINGS*/"), and {{en:KEY}} / {{zh:KEY}} replaced by the
        HTML-escaped text.
"""
import pathlib
import re
import sys

TOKEN = re.compile(
    r'(?P<space>\s+)|(?P<line_comment>//[^\n]*)|(?P<block_comment>/\*.*?\*/)|(?P<directive>#[^\n]*)'
    r'|"(?P<string>(?:[^"\\\n]|\\.)*)"|(?P<ident>[A-Za-z_]\w*)|(?P<punct>[(),])',
    re.S,
)
ESCAPE = re.compile(rb"\\(x[0-9a-fA-F]+|[0-7]{1,3}|.)")
SIMPLE_ESCAPES = {b"n": b"\n", b"t": b"\t", b"r": b"\r", b"a": b"\a", b"b": b"\b", b"f": b"\f", b"v": b"\v",
                  b'"': b'"', b"\\": b"\\", b"'": b"'", b"?": b"?"}


def unescape(body: str, where: str) -> bytes:
    """A C string literal's body as bytes (decoded to text only after adjacent literals are joined)."""

    def one(m):
        e = m.group(1)
        if e[:1] == b"x":
            return bytes([int(e[1:], 16) & 0xFF])
        if e[:1].isdigit():
            return bytes([int(e, 8) & 0xFF])
        if e not in SIMPLE_ESCAPES:
            sys.exit(f"string_table.py: {where}: unsupported escape \\{e.decode()}")
        return SIMPLE_ESCAPES[e]

    return ESCAPE.sub(one, body.encode("utf-8"))


def tokens(path):
    text = path.read_text("utf-8")
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            line = text.count("\n", 0, pos) + 1
            sys.exit(f"string_table.py: {path}:{line}: cannot read {text[pos:pos + 20]!r}")
        kind = m.lastgroup
        if kind not in ("space", "line_comment", "block_comment", "directive"):
            yield kind, m.group(kind), f"{path}:{text.count(chr(10), 0, pos) + 1}"
        pos = m.end()


def entries(strings_dir):
    """(key, [English, Chinese]) of every LAB_STR(key, "..." "...", "...") in the .def files."""
    for path in sorted(pathlib.Path(strings_dir).glob("*.def")):
        toks = list(tokens(path))
        i = 0

        def expect(kind, value=None):
            nonlocal i
            if i >= len(toks) or toks[i][0] != kind or (value is not None and toks[i][1] != value):
                where = toks[i][2] if i < len(toks) else str(path)
                sys.exit(f"string_table.py: {where}: expected {value or kind} in LAB_STR(key, \"English\", \"中文\")")
            i += 1
            return toks[i - 1]

        while i < len(toks):
            _, _, where = expect("ident", "LAB_STR")
            expect("punct", "(")
            key = expect("ident")[1]
            groups = []
            for last in (False, True):
                expect("punct", ",")
                joined = b""
                while i < len(toks) and toks[i][0] == "string":
                    joined += unescape(toks[i][1], toks[i][2])
                    i += 1
                try:
                    groups.append(joined.decode("utf-8"))
                except UnicodeDecodeError as e:
                    sys.exit(f"string_table.py: {where}: {key}: not UTF-8 ({e})")
            expect("punct", ")")
            yield key, groups


def gb2312_hanzi():
    """GB2312's hanzi: rows 16-55 (level 1, 3,755) and 56-87 (level 2, 3,008)."""
    out = []
    for hi in range(0xB0, 0xF8):
        for lo in range(0xA1, 0xFF):
            try:
                out.append(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return out


def write_text(out, strings_dirs):
    chars = set()
    count = 0
    for strings_dir in strings_dirs:
        before = count
        for key, groups in entries(strings_dir):
            chars.update(c for c in groups[1] if ord(c) > 0x7E)
            count += 1
        if count == before:
            sys.exit(f"string_table.py: no LAB_STR entries under {strings_dir}")
    chars.update(gb2312_hanzi())
    chars.update(chr(c) for c in range(0x3000, 0x3020))   # CJK punctuation: 、。「」《》…
    chars.update(chr(c) for c in range(0xFF01, 0xFF5F))   # full-width forms: ，！？（）：；
    chars.update("\u00b7\u2014\u2026\u201c\u201d\u2018\u2019")
    pathlib.Path(out).write_text("".join(sorted(chars)), "utf-8")
    print(f"string_table.py: {count} strings, {len(chars)} characters -> {out}")


def write_gb2312(out):
    hanzi = gb2312_hanzi()
    if len(hanzi) != 6763:
        sys.exit(f"string_table.py: the gb2312 codec gave {len(hanzi)} hanzi, not 6,763")
    pathlib.Path(out).write_text("".join(f"{ord(c):04X}\n" for c in hanzi), "ascii")


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
    if len(sys.argv) >= 4 and sys.argv[1] == "text":
        write_text(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 5 and sys.argv[1] == "page":
        write_page(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 3 and sys.argv[1] == "gb2312":
        write_gb2312(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "cmap":
        write_cmap(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
