#!/usr/bin/env python3
"""serve.py — serves the built page on localhost, compressed where the browser allows.

    serve.py [--port N] [--bind ADDR] [--quiet] DIR

Python's http.server with one addition: when the request's Accept-Encoding allows
br (or gzip) and NAME.br (NAME.gz) lies beside NAME and is not older than it
(scripts/compress_page.py writes them at build time), that file is sent with
Content-Encoding, the original Content-Type and Vary: Accept-Encoding. The
decoded size goes in X-Decoded-Length so the loader's progress bar can show how
far the download is. Everything else is http.server's: no directory listings
beyond it, nothing outside DIR.
"""
import argparse
import functools
import http.server
import os
import sys

ENCODINGS = (("br", ".br"), ("gzip", ".gz"))  # in order of preference


def accepted_encodings(header):
    """The codings an Accept-Encoding header allows (q > 0), lower-cased."""
    allowed = set()
    for part in (header or "").split(","):
        fields = [f.strip() for f in part.split(";")]
        name = fields[0].lower()
        q = 1.0
        for f in fields[1:]:
            if f.lower().startswith("q="):
                try:
                    q = float(f[2:])
                except ValueError:
                    q = 0.0
        if name and q > 0:
            allowed.add(name)
    return allowed


class Handler(http.server.SimpleHTTPRequestHandler):
    quiet = False
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript", ".otf": "font/otf"}

    def has_siblings(self, path):
        return any(os.path.isfile(path + suffix) for _, suffix in ENCODINGS)

    def compressed_sibling(self, path):
        allowed = accepted_encodings(self.headers.get("Accept-Encoding"))
        for coding, suffix in ENCODINGS:
            sibling = path + suffix
            if coding in allowed and os.path.isfile(sibling) and os.path.getmtime(sibling) >= os.path.getmtime(path):
                return coding, sibling
        return "identity", path

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path) and self.path.split("?")[0].endswith("/"):
            path = os.path.join(path, "index.html")
        if not os.path.isfile(path) or not self.has_siblings(path):
            return super().send_head()
        coding, sent = self.compressed_sibling(path)
        f = open(sent, "rb")
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        if coding != "identity":
            self.send_header("Content-Encoding", coding)
            self.send_header("X-Decoded-Length", str(os.path.getsize(path)))
        self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        return f

    def log_message(self, format, *args):
        if not self.quiet:
            super().log_message(format, *args)


def main():
    parser = argparse.ArgumentParser(description="Serve the Attention Lab page (compressed where allowed).")
    parser.add_argument("directory")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    if not os.path.isdir(args.directory):
        sys.exit(f"serve.py: {args.directory} is not a folder (build the page first: scripts/build.sh web)")
    Handler.quiet = args.quiet
    handler = functools.partial(Handler, directory=args.directory)
    with http.server.ThreadingHTTPServer((args.bind, args.port), handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
