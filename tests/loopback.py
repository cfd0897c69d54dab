"""A tiny HTTP server on 127.0.0.1 for the download tests: real sockets, real requests.

Files are served from a dict {path: bytes}. It honours ``Range: bytes=N-`` (206), and a few
paths misbehave on purpose: ``/cut/...`` closes the connection half-way through the first
response (a dropped download), ``/stall/...`` sends the headers and then nothing, ``/drip/...`` one byte every 0.1 s, ``/norange/...``
ignores Range and always sends the whole file (200). Every request is logged in ``requests``.

Misbehaviours real servers show (issue 20): ``/nolength/`` sends no Content-Length and closes
after half the file; ``/shortlength/`` announces and sends only half; ``/offrange/`` answers a
range from 100 bytes before the one asked; ``/html/`` answers 200 with an HTML page;
``/gzenc/`` adds ``Content-Encoding: gzip`` to a .gz; ``/badenc/`` claims gzip encoding for a
body that is not; ``/loop/`` redirects to itself; ``/flaky/`` drops every connection after
4 KiB of progress (a long file needs many resumes).
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
                if self._misbehave(head):
                    return
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
                if self.path.startswith("/flaky/"):
                    self.wfile.write(part[:4096])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if self.path.startswith("/stall/"):
                    time.sleep(server.stall_seconds)
                    return
                if self.path.startswith("/drip/"):  # a byte at a time, never a whole block
                    for i in range(min(len(part), int(server.stall_seconds / 0.1))):
                        try:
                            self.wfile.write(part[i:i + 1])
                            self.wfile.flush()
                        except OSError:  # the client gave up: what the test wants
                            return
                        time.sleep(0.1)
                    self.close_connection = True
                    return
                if self.path.startswith("/cut/") and self.path not in server.cut_done:
                    server.cut_done.add(self.path)
                    self.wfile.write(part[: len(part) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(part)

            def _misbehave(self, head) -> bool:
                """The special paths that do not follow the plain serve; True when answered."""
                body = server.files.get(self.path)
                p = self.path
                if p.startswith("/loop/"):
                    self.send_response(302)
                    self.send_header("Location", p)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return True
                if body is None:
                    return False
                if p.startswith("/html/"):
                    page = b"<!DOCTYPE html><html><body>Please log in</body></html>\n"
                    self._answer(200, page, {"Content-Type": "text/html; charset=utf-8"}, head)
                    return True
                if p.startswith("/gzenc/"):
                    self._answer(200, body, {"Content-Encoding": "gzip",
                                             "Content-Type": "application/x-gzip"}, head)
                    return True
                if p.startswith("/badenc/"):
                    self._answer(200, body, {"Content-Encoding": "gzip"}, head)
                    return True
                if p.startswith("/shortlength/"):
                    self._answer(200, body[: len(body) // 2], {}, head)
                    return True
                if p.startswith("/nolength/"):
                    self.send_response(200)
                    self.send_header("Connection", "close")
                    self.end_headers()
                    if not head:
                        self.wfile.write(body[: len(body) // 2])
                    self.close_connection = True
                    return True
                rng = self.headers.get("Range")
                if p.startswith("/offrange/") and rng:
                    start = max(int(rng.split("=")[1].split("-")[0]) - 100, 0)
                    self._answer(206, body[start:], {
                        "Content-Range": f"bytes {start}-{len(body) - 1}/{len(body)}"}, head)
                    return True
                return False

            def _answer(self, code, data, headers, head):
                self.send_response(code)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not head:
                    self.wfile.write(data)

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
