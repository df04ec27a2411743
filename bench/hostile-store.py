#!/usr/bin/env python3
"""A hostile remote cache store for bench/run-hostile.sh: every GET is answered with SIZE bytes
(just under gallerygen's 256 MiB object cap) that are no gallerygen object; HEAD says nothing is
there; PUT takes anything. Listens on 127.0.0.1 only.

    bench/hostile-store.py PORT [SIZE]
"""
import http.server, socketserver, sys
SIZE = int(sys.argv[2]) if len(sys.argv) > 2 else 255 * 1024 * 1024
BLOCK = b"x" * (1 << 20)
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(SIZE))
        self.end_headers()
        left = SIZE
        try:
            while left > 0:
                n = min(left, len(BLOCK)); self.wfile.write(BLOCK[:n]); left -= n
        except Exception: pass
    def do_HEAD(self):
        self.send_response(404); self.send_header("Content-Length","0"); self.end_headers()
    def do_PUT(self):
        n = int(self.headers.get("Content-Length","0")); self.rfile.read(n)
        self.send_response(201); self.send_header("Content-Length","0"); self.end_headers()
class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
S(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
