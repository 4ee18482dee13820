#!/usr/bin/env python3
"""compress_page.py — writes NAME.br and NAME.gz beside the page's big files.

    compress_page.py PAGE_DIR FILE [FILE ...]

The page is static: compressing once at build time lets any server send the
small files (scripts/serve.py picks .br or .gz by the request's Accept-Encoding;
a plain static host may ignore them). Brotli at quality 11 and gzip at level 9
with mtime 0, so a rebuild writes the same bytes. A file whose compressed copies
are newer than it is skipped (the wasm takes seconds at quality 11).
Needs Debian's python3-brotli (/usr/bin/python3).
"""
import gzip
import os
import sys

try:
    import brotli
except ImportError:
    sys.exit("compress_page.py: the brotli module is missing (Debian package python3-brotli)")


def up_to_date(source, target):
    return os.path.exists(target) and os.path.getmtime(target) >= os.path.getmtime(source)


def write_atomically(path, data):
    temp = path + ".tmp"
    with open(temp, "wb") as out:
        out.write(data)
    os.replace(temp, path)


def compress(path):
    with open(path, "rb") as f:
        data = f.read()
    if not up_to_date(path, path + ".br"):
        write_atomically(path + ".br", brotli.compress(data, quality=11))
    if not up_to_date(path, path + ".gz"):
        write_atomically(path + ".gz", gzip.compress(data, compresslevel=9, mtime=0))
    return len(data), os.path.getsize(path + ".br"), os.path.getsize(path + ".gz")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.strip())
    page = argv[1]
    for name in argv[2:]:
        path = os.path.join(page, name)
        if not os.path.isfile(path):
            sys.exit(f"compress_page.py: {path} does not exist")
        raw, br, gz = compress(path)
        print(f"[compress] {name}: {raw} bytes, br {br}, gz {gz}")


if __name__ == "__main__":
    main(sys.argv)
