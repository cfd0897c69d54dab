"""A tiny HTTP server on 127.0.0.1 for the download tests: real sockets, real requests.

Files are served from a dict {path: bytes}. It honours ``Range: bytes=N-`` (206), and a few
paths misbehave on purpose: ``/cut/...`` closes the connection half-way through the first
response (a dropped download), ``/stall/...`` sends the headers and then nothing, ``/norange/...``
ignores Range and always sends the whole file (200). Every request is logged in ``requests``.
"""

from __future__ import annotations

import http.server
import threading
import time


class Server:
    def __init__(self, files: dict[str, bytes], stall_seconds: float = 5.0):
        self.files = files
        self.requests: list[tuple[str, str | None]] = []
        self.cut_done: set[str] = set()
        self.stall_seconds = stall_seconds
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_HEAD(self):
                self._serve(head=True)

            def do_GET(self):
                self._serve(head=False)

            def _serve(self, head):
                server.requests.append((self.path, self.headers.get("Range")))
                body = server.files.get(self.path)
                if body is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                start = 0
                rng = self.headers.get("Range")
                if rng and not self.path.startswith("/norange/"):
                    start = int(rng.split("=")[1].split("-")[0])
                    if start >= len(body):
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(body)}")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                    self.send_header("Accept-Ranges", "bytes")
                part = body[start:]
                self.send_header("Content-Length", str(len(part)))
                self.end_headers()
                if head:
                    return
                if self.path.startswith("/stall/"):
                    time.sleep(server.stall_seconds)
                    return
                if self.path.startswith("/cut/") and self.path not in server.cut_done:
                    server.cut_done.add(self.path)
                    self.wfile.write(part[: len(part) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(part)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
