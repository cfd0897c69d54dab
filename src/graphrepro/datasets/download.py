"""Downloads that are atomic, resumable, verified and honest about failing.

A file is streamed to ``NAME.part`` beside its destination and renamed to ``NAME`` only once its
size and sha256 check out, so a later step never reads half a file. An interrupted transfer
resumes from the ``.part`` with an HTTP ``Range`` request; a server that ignores the range gets
a fresh start. Connection errors, stalls (read timeout) and 5xx/429 answers are retried with
exponential backoff, then the mirrors are tried; a 4xx is final for that URL. Every failure is a
``DownloadError`` that names the URL, the reason and where the user can put the file by hand.

Where no checksum is published, what arrives is first checked as the format it claims to be
(datasets/validate.py: gzip integrity, the header's counts against the registry's and the body's)
and only then recorded, size and sha256, in a lock file (``config/datasets.lock.json``); every
later download must match it. A lock entry can be wrong (recorded by an older version from a bad
file): the error then says how to drop it (``python -m graphrepro fetch KEY --forget-lock``).

Content-Range is honoured (a 206 is written from the byte it starts at; a 416 ends a transfer
only when it says the .part is whole), a transfer that makes progress does not use up retries,
the whole download has a deadline, HTML pages are refused, and a ``.gz`` served with
``Content-Encoding: gzip`` is stored as the bytes sent (the file), not decompressed.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import datetime as _dt
import hashlib
import json
import os
import re
import socket
import sys
import threading
import time
import zlib
from pathlib import Path
from urllib.parse import urlparse

import requests
import urllib3

from .. import atomic
from ..bounded import BadFile, json_text
from ..errors import GraphreproError

CHUNK = 1 << 20  # hashing
NET_CHUNK = 1 << 16  # small enough that a dropped connection loses little


class DownloadError(GraphreproError):
    """A download that failed or did not verify; the message says what the user can do.

    ``verification`` is true when a file arrived but was the wrong one (size or sha256): unlike
    a missing network, that must stop a workflow rather than fall back to a stand-in.
    """

    def __init__(self, message: str, *, verification: bool = False):
        super().__init__(message)
        self.verification = verification


class _Permanent(Exception):
    """A failure that retrying the same URL cannot fix (404, 403, a checksum mismatch)."""

    def __init__(self, message: str, verification: bool = False):
        super().__init__(message)
        self.verification = verification


def sha256_of(path, *, chunk: int = CHUNK) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def reachable(url: str, timeout: float = 3.0) -> tuple[bool, str]:
    """Whether ``url``'s host answers, within about ``timeout`` seconds; (ok, reason).

    Name resolution has no timeout of its own in requests, so it runs in a thread that is given
    up on after ``timeout``: on a machine without network this answers in seconds, not minutes.
    """
    parsed = urlparse(url)
    host = parsed.hostname or ""
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        pool.submit(socket.getaddrinfo, host, port).result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        return False, f"no answer resolving {host} within {timeout:g} s (offline?)"
    except OSError as e:
        return False, f"cannot resolve {host}: {e.strerror or e} (offline?)"
    finally:
        pool.shutdown(wait=False)
    try:
        with requests.head(url, timeout=(timeout, timeout), allow_redirects=True) as r:
            if r.status_code >= 400 and r.status_code not in (405, 501):  # some hosts refuse HEAD
                return False, f"HTTP {r.status_code} from {url}"
    except requests.RequestException as e:
        return False, f"{type(e).__name__} connecting to {host}: {_short(e)}"
    return True, "reachable"


def _short(e: BaseException) -> str:
    """One readable reason; urllib3's wrapped messages repeat the URL and bury the cause."""
    text = str(e)
    for marker, says in (("NameResolutionError", "cannot resolve the host (offline?)"),
                         ("Connection refused", "connection refused"),
                         ("Read timed out", "stalled: no data within the read timeout"),
                         ("ConnectTimeout", "no connection within the connect timeout"),
                         ("RemoteDisconnected", "the server closed the connection")):
        if marker in text:
            return says
    return text if len(text) < 200 else text[:200] + "..."


class _Progress:
    """One line on stderr: a bar when stderr is a terminal, every 10% otherwise (logs)."""

    def __init__(self, label: str, total: int | None, start: int, enabled: bool):
        self.label, self.total, self.done = label, total, start
        self.enabled = enabled
        self.tty = enabled and sys.stderr.isatty()
        self.t0 = time.monotonic()
        self.last_decile = -1

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        rate = self.done / max(time.monotonic() - self.t0, 1e-6) / 1e6
        if self.total:
            frac = min(self.done / self.total, 1.0)
            if self.tty:
                bar = "#" * int(frac * 30)
                sys.stderr.write(f"\r{self.label} [{bar:<30}] {frac:6.1%} {rate:6.1f} MB/s")
                sys.stderr.flush()
            elif int(frac * 10) > self.last_decile:
                self.last_decile = int(frac * 10)
                print(f"{self.label}: {frac:.0%} of {self.total:,} bytes", file=sys.stderr)
        elif self.tty:
            sys.stderr.write(f"\r{self.label} {self.done / 1e6:,.1f} MB {rate:6.1f} MB/s")
            sys.stderr.flush()

    def close(self) -> None:
        if self.tty:
            sys.stderr.write("\n")


_COMPRESSED = (".gz", ".tgz", ".bz2", ".xz", ".zip", ".zst")


class _Restart(Exception):
    """The .part cannot be continued (a range the server will not give): start it again."""


def _content_range(header: str) -> tuple[int | None, int | None]:
    """(first byte, total length) of ``Content-Range: bytes A-B/T`` or ``bytes */T``."""
    m = re.match(r"\s*bytes\s+(?:(\d+)-\d+|\*)/(\d+|\*)\s*$", header or "")
    if not m:
        return None, None
    return (int(m.group(1)) if m.group(1) else None,
            int(m.group(2)) if m.group(2) != "*" else None)


def _stream(url, part: Path, *, timeout, progress: bool, session, deadline: float,
            decode: bool, size: int | None = None) -> None:
    """Fetch ``url`` into ``part``, resuming from its current size where the server allows.

    With the registry's ``size``, a body that writes past it (a gzip-encoded one decodes to any
    size at all) is stopped there: no more than the file's size is ever written.

    A 206 is used from the byte its Content-Range says it starts at (the .part is cut back to
    it, or restarted when the server starts past what we have); a 416 ends the transfer only
    when its ``bytes */TOTAL`` says the .part is exactly whole, else the .part restarts.
    """
    have = part.stat().st_size if part.exists() else 0
    # identity: ranges then count the file's own bytes, never a transport encoding's
    headers = {"Accept-Encoding": "identity", **({"Range": f"bytes={have}-"} if have else {})}
    with session.get(url, stream=True, timeout=timeout, headers=headers) as r:
        if r.status_code == 416 and have:
            _, total = _content_range(r.headers.get("Content-Range", ""))
            if total == have:  # nothing left to send: the .part is already whole
                return
            part.unlink()  # longer than the file, or the server will not say: start again
            raise _Restart(f"the server refused the range from byte {have:,}"
                           + (f" of a {total:,}-byte file" if total is not None else ""))
        if 400 <= r.status_code < 500 and r.status_code not in (408, 429):
            raise _Permanent(f"HTTP {r.status_code} {r.reason}")
        r.raise_for_status()
        kind = r.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind in ("text/html", "application/xhtml+xml"):
            raise _Permanent(f"the server answered with an HTML page ({kind}), not the file")
        start = 0
        if have and r.status_code == 206:
            first, _ = _content_range(r.headers.get("Content-Range", ""))
            if first is None or first > have:
                part.unlink()
                raise _Restart(f"a 206 starting at byte {first}, past the {have:,} we have")
            start = first  # at or before our end: keep what precedes it, rewrite the rest
        encoded = r.headers.get("Content-Encoding", "identity").lower() not in ("identity", "")
        if encoded and start:
            part.unlink()  # an encoded body's ranges are not the file's bytes
            raise _Restart("a range of an encoded body")
        length = r.headers.get("Content-Length")
        total = start + int(length) if length and length.isdigit() and not encoded else None
        bar = _Progress(Path(part.name).stem, total, start, progress)
        stall_s = timeout[1] if isinstance(timeout, tuple) else timeout
        try:
            # never through a link planted at the .part's name (atomic.open_file)
            with atomic.open_file(part, "r+b" if start else "wb") as f, \
                    _Watchdog(r, deadline, stall_s) as dog:
                f.seek(start)
                f.truncate()
                try:
                    # a .gz served with Content-Encoding: gzip is the file itself: keep its bytes
                    written = start
                    for block in r.raw.stream(NET_CHUNK, decode_content=decode):
                        written += len(block)
                        if size is not None and written > size:
                            part.unlink()
                            raise _Permanent(f"the body passes the expected {size:,} bytes "
                                             f"(the registry's size"
                                             f"{', decoded' if encoded and decode else ''}): "
                                             "stopped there and deleted", True)
                        f.write(block)
                        dog.fed()
                        bar.update(len(block))
                        if time.monotonic() > deadline:
                            raise _Deadline()
                except Exception:
                    dog.raise_reason()
                    raise
                dog.raise_reason()  # a closed stream can also just end, looking complete
        finally:
            bar.close()
        if total is not None and part.stat().st_size < total:
            raise requests.ConnectionError(f"connection closed after {part.stat().st_size:,} of "
                                           f"{total:,} bytes")


class _Deadline(Exception):
    pass


def _hang_up(response) -> None:
    """Wake a read blocked on this response's socket: closing alone leaves a recv() in another
    thread waiting for the server's next byte, a shutdown ends it at once. The socket is reached
    through urllib3's connection (or, failing that, http.client's reader); without either, the
    close still ends the transfer at the next byte."""
    raw = response.raw
    sock = getattr(getattr(raw, "_connection", None), "sock", None)
    if sock is None:
        sock = getattr(getattr(getattr(getattr(raw, "_fp", None), "fp", None), "raw", None), "_sock", None)
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    response.close()


class _Watchdog:
    """Ends a transfer that passes the deadline or brings no whole block within the read timeout.

    A read blocks until a whole block has come, so a server that drips a byte at a time never
    trips the read timeout nor reaches the deadline check between blocks. This thread closes the
    response instead; the blocked read then ends, and the reason is raised in the reader."""

    def __init__(self, response, deadline: float, stall_s: float):
        self.response, self.deadline, self.stall_s = response, deadline, stall_s
        self.last = time.monotonic()
        self.reason = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def fed(self) -> None:
        self.last = time.monotonic()

    def _watch(self) -> None:
        while not self._stop.wait(0.1):
            now = time.monotonic()
            if now > self.deadline:
                self.reason = "deadline"
            elif now - self.last > self.stall_s:
                self.reason = "stalled"
            else:
                continue
            _hang_up(self.response)
            return

    def raise_reason(self) -> None:
        if self.reason == "deadline":
            raise _Deadline() from None
        if self.reason == "stalled":
            raise _Dripping(f"less than {NET_CHUNK:,} bytes in {self.stall_s:g} s") from None


class _Dripping(requests.Timeout):
    """A stall with a few bytes in it: those bytes are no progress that earns another try."""


# Errors worth another try on the same URL; every other RequestException is final for it.
_RETRY = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError,
          requests.HTTPError, urllib3.exceptions.ProtocolError, urllib3.exceptions.ReadTimeoutError)


def download(url: str, dest, *, sha256: str | None = None, size: int | None = None,
             mirrors=(), timeout=(10.0, 60.0), retries: int = 4, backoff: float = 2.0,
             progress: bool = True, session=None, validate=None,
             deadline_s: float = 4 * 3600.0) -> Path:
    """Download ``url`` to ``dest``, verified; returns ``dest``. See the module's docstring.

    ``validate(part)``: the content check for files no published checksum vouches for (it
    raises on a wrong file, which is then deleted). ``deadline_s``: the whole download, every
    retry and mirror included, gives up after this long (the .part is kept to resume from).
    """
    dest = Path(dest)
    if not dest.name or url.endswith("/"):
        raise DownloadError(f"cannot download {url}: the URL names no file (it ends in '/')")
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    session = session or requests.Session()
    decode = not dest.name.lower().endswith(_COMPRESSED)
    deadline = time.monotonic() + deadline_s
    reasons, wrong_file = [], False
    for candidate in (url, *mirrors):
        failures = 0
        while True:
            before = part.stat().st_size if part.exists() else 0
            try:
                _stream(candidate, part, timeout=timeout, progress=progress, session=session,
                        deadline=deadline, decode=decode, size=size)
                _verify(part, sha256=sha256, size=size, validate=validate)
                _keep_what_is_there(part, dest, sha256)
                part.replace(dest)
                return dest
            except _Permanent as e:
                reasons.append(f"{candidate}: {e}")
                wrong_file = wrong_file or e.verification
                break
            except _Deadline:
                reasons.append(f"{candidate}: not done within the {deadline_s:g} s deadline")
                break
            except (_Restart, *_RETRY) as e:
                why = ("stalled: no data within the read timeout" if isinstance(e, requests.Timeout)
                       else _short(e))
                if time.monotonic() > deadline:
                    reasons.append(f"{candidate}: {why}; the {deadline_s:g} s deadline passed")
                    break
                if part.exists() and part.stat().st_size > before and not isinstance(e, _Dripping):
                    failures = 0  # progress kept is not a failed try: resume at once
                    continue
                failures += 1
                if failures > retries:
                    reasons.append(f"{candidate}: {why} (after {failures} attempts without "
                                   f"progress)")
                    break
                if isinstance(e, _Restart):
                    continue  # a fresh start, not a failing server: no wait
                time.sleep(min(backoff * (2 ** (failures - 1)),
                               max(deadline - time.monotonic(), 0)))
            except requests.RequestException as e:  # redirect loops, bad schemes, invalid URLs
                reasons.append(f"{candidate}: {type(e).__name__}: {_short(e)}")
                break
            except (urllib3.exceptions.HTTPError, zlib.error) as e:  # a body that will not decode
                reasons.append(f"{candidate}: the body cannot be decoded ({_short(e)})")
                if part.exists():
                    part.unlink()
                break
        if time.monotonic() > deadline:
            break
    kept = (f" The partial file {part} ({part.stat().st_size:,} bytes) is kept and the next try "
            f"resumes from it." if part.exists() else "")
    check = f" with sha256 {sha256}" if sha256 else ""
    raise DownloadError(f"cannot download {url}: {'; '.join(reasons)}.{kept} You can put the file"
                        f"{check} at {dest} by hand and run again.", verification=wrong_file)


def _keep_what_is_there(part: Path, dest: Path, sha256: str | None) -> None:
    """A file already at ``dest`` is replaced only by the same bytes or by bytes a published
    checksum vouches for: a server that now serves another file must not overwrite a good one
    when nothing says which of the two is right."""
    if sha256 is not None or not dest.is_file() or sha256_of(part) == sha256_of(dest):
        return
    part.unlink()
    raise DownloadError(f"{dest} is already there and the server now sends a different file "
                        f"(no published checksum says which is right): {dest} was kept and the "
                        f"download discarded. Delete {dest} to take the new one.",
                        verification=True)


def _verify(part: Path, *, sha256: str | None, size: int | None, validate=None) -> None:
    have = part.stat().st_size
    if size is not None and have != size:
        part.unlink()  # a wrong file must not be resumed from
        raise _Permanent(f"size {have:,} bytes, expected {size:,}: the file was deleted", True)
    if sha256 is not None:
        got = sha256_of(part)
        if got != sha256:
            part.unlink()
            raise _Permanent(f"sha256 {got} does not match the expected {sha256}: the file "
                             f"was deleted", True)
    if validate is not None:
        from .validate import InvalidDatasetFile

        try:
            validate(part)
        except InvalidDatasetFile as e:
            part.unlink()
            raise _Permanent(f"{e}: the file was deleted", True) from None


# --- the lock file: first-seen checksums ------------------------------------------------------

@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on ``path.lock`` (parallel snakemake jobs may record at once)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    handle = atomic.open_lock(path.with_name(path.name + ".lock"))  # a planted link: refused
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock


def read_lock(path) -> dict:
    from .registry import lock_seed

    path = Path(path)
    if not path.is_file():  # an installed wheel's user lock starts as the packaged one
        path = lock_seed(path) or path
    if not path.is_file():
        return {}
    try:
        return json_text(path.read_text() or "{}", path)
    except BadFile as e:
        raise DownloadError(f"{e}; fix or delete it") from None


def record_lock(path, key: str, *, url: str, file: str, size: int, sha256: str) -> dict:
    """Record a verified download's size and sha256 unless one is recorded already."""
    path = Path(path)
    with _locked(path):
        lock = read_lock(path)
        if key not in lock:
            lock[key] = {"file": file, "url": url, "size": size, "sha256": sha256,
                         "first_seen": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
            atomic.write_text(path, json.dumps(lock, indent=1, sort_keys=True) + "\n")
        return lock[key]


def forget_lock(path, key: str) -> dict | None:
    """Drop ``key``'s first-seen entry (it was recorded from a wrong file); returns it."""
    path = Path(path)
    with _locked(path):
        lock = read_lock(path)
        entry = lock.pop(key, None)
        if entry is not None:
            atomic.write_text(path, json.dumps(lock, indent=1, sort_keys=True) + "\n")
        return entry
