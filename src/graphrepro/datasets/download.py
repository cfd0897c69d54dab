"""Downloads that are atomic, resumable, verified and honest about failing.

A file is streamed to ``NAME.part`` beside its destination and renamed to ``NAME`` only once its
size and sha256 check out, so a later step never reads half a file. An interrupted transfer
resumes from the ``.part`` with an HTTP ``Range`` request; a server that ignores the range gets
a fresh start. Connection errors, stalls (read timeout) and 5xx/429 answers are retried with
exponential backoff, then the mirrors are tried; a 4xx is final for that URL. Every failure is a
``DownloadError`` that names the URL, the reason and where the user can put the file by hand.

Where no checksum is published, the first verified download records its size and sha256 in a
lock file (``config/datasets.lock.json``), and every later download must match it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import datetime as _dt
import hashlib
import json
import os
import socket
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import requests

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


def _stream(url, part: Path, *, timeout, progress: bool, session) -> None:
    """Fetch ``url`` into ``part``, resuming from its current size where the server allows."""
    have = part.stat().st_size if part.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    with session.get(url, stream=True, timeout=timeout, headers=headers) as r:
        if r.status_code == 416 and have:  # nothing left to send: the .part is already whole
            return
        if 400 <= r.status_code < 500 and r.status_code not in (408, 429):
            raise _Permanent(f"HTTP {r.status_code} {r.reason}")
        r.raise_for_status()
        resumed = have and r.status_code == 206 and \
            r.headers.get("Content-Range", "").startswith(f"bytes {have}-")
        mode = "ab" if resumed else "wb"
        start = have if resumed else 0
        length = r.headers.get("Content-Length")
        total = start + int(length) if length and length.isdigit() else None
        bar = _Progress(Path(part.name).stem, total, start, progress)
        try:
            with open(part, mode) as f:
                for block in r.iter_content(NET_CHUNK):
                    f.write(block)
                    bar.update(len(block))
        finally:
            bar.close()
        if total is not None and part.stat().st_size < total:
            raise requests.ConnectionError(f"connection closed after {part.stat().st_size:,} of "
                                           f"{total:,} bytes")


def download(url: str, dest, *, sha256: str | None = None, size: int | None = None,
             mirrors=(), timeout=(10.0, 60.0), retries: int = 4, backoff: float = 2.0,
             progress: bool = True, session=None) -> Path:
    """Download ``url`` to ``dest``, verified; returns ``dest``. See the module's docstring."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    session = session or requests.Session()
    reasons, wrong_file = [], False
    for candidate in (url, *mirrors):
        for attempt in range(retries + 1):
            try:
                _stream(candidate, part, timeout=timeout, progress=progress, session=session)
                _verify(part, sha256=sha256, size=size)
                part.replace(dest)
                return dest
            except _Permanent as e:
                reasons.append(f"{candidate}: {e}")
                wrong_file = wrong_file or e.verification
                break
            except (requests.ConnectionError, requests.Timeout,
                    requests.exceptions.ChunkedEncodingError, requests.HTTPError) as e:
                why = ("stalled: no data within the read timeout" if isinstance(e, requests.Timeout)
                       else _short(e))
                if attempt == retries:
                    reasons.append(f"{candidate}: {why} (after {retries + 1} attempts)")
                    break
                time.sleep(backoff * (2 ** attempt))
    kept = (f" The partial file {part} ({part.stat().st_size:,} bytes) is kept and the next try "
            f"resumes from it." if part.exists() else "")
    check = f" with sha256 {sha256}" if sha256 else ""
    raise DownloadError(f"cannot download {url}: {'; '.join(reasons)}.{kept} You can put the file"
                        f"{check} at {dest} by hand and run again.", verification=wrong_file)


def _verify(part: Path, *, sha256: str | None, size: int | None) -> None:
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


# --- the lock file: first-seen checksums ------------------------------------------------------

@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on ``path.lock`` (parallel snakemake jobs may record at once)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_lock(path) -> dict:
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text() or "{}")
    except json.JSONDecodeError as e:
        raise DownloadError(f"{path}: not valid JSON ({e}); fix or delete it") from None


def record_lock(path, key: str, *, url: str, file: str, size: int, sha256: str) -> dict:
    """Record a verified download's size and sha256 unless one is recorded already."""
    path = Path(path)
    with _locked(path):
        lock = read_lock(path)
        if key not in lock:
            lock[key] = {"file": file, "url": url, "size": size, "sha256": sha256,
                         "first_seen": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
            tmp = path.with_name(path.name + f".{os.getpid()}.part")
            tmp.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
            tmp.replace(path)
        return lock[key]
