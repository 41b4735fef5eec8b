"""`selfattn serve`: build the article into a temporary folder and serve it on loopback.

A small hardened static server on the standard library's threaded HTTP server: only
GET and HEAD, no path outside the site (encoded dots, backslashes and symlinks
included), exact content types, a strict Content-Security-Policy, ETags with 304s,
gzip when asked, and a timeout so a client that never finishes cannot hold a thread.
It rebuilds the site when a source file changes.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import sys
import tempfile
import threading
import time
import webbrowser
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .build import SITE, BuildError, build, script_hashes

SOURCES = (SITE / "content", SITE / "static", SITE / "templates", SITE.parent / "head.json")
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}
COMPRESSIBLE = {".html", ".js", ".css", ".svg", ".json", ".txt"}
# script-src: our files, and the script the build puts inside the page by its hash (per build)
POLICY = (
    "default-src 'self'; script-src {scripts}; style-src 'self'; "
    "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _stamp() -> float:
    """The newest modification time among the article's sources."""
    newest = 0.0
    for source in SOURCES:
        paths = [source] if source.is_file() else source.rglob("*")
        newest = max([newest, *(p.stat().st_mtime for p in paths if p.is_file())])
    return newest


class Site:
    """A built copy of the article that rebuilds itself when its sources change."""

    CHECK_EVERY = 0.5  # seconds: a burst of requests looks at the sources once

    def __init__(self, folder: Path, watch: bool = True) -> None:
        self.watch = watch
        self.root = folder.resolve()
        self.lock = threading.Lock()
        self.built_at = -1.0
        self.checked_at = 0.0
        self.cache: dict[tuple[Path, bool], tuple[float, bytes, str]] = {}
        self.policy = POLICY.format(scripts="'self'")

    def fresh(self) -> None:
        with self.lock:
            if self.built_at >= 0 and not self.watch:
                return
            if time.monotonic() - self.checked_at < self.CHECK_EVERY:
                return
            self.checked_at = time.monotonic()
            stamp = _stamp()
            if stamp != self.built_at:
                try:
                    build(self.root)
                    self.policy = POLICY.format(scripts=" ".join(["'self'", *script_hashes()]))
                except BuildError as err:  # keep serving the last good build
                    print(f"selfattn serve: build failed: {err}", file=sys.stderr)
                self.built_at = stamp
                self.cache.clear()

    def locate(self, url_path: str) -> Path | None:
        """The file a URL path names, or None if it is not a file inside the site."""
        path = unquote(urlsplit(url_path).path)
        if "\\" in path or "\x00" in path or not path.startswith("/"):
            return None
        parts = [p for p in path.split("/") if p]
        if any(p in (".", "..") for p in parts):
            return None
        candidate = self.root.joinpath(*parts)
        if candidate.is_dir():
            candidate = candidate / "index.html"
        try:
            resolved = candidate.resolve(strict=True)  # follows symlinks: they must stay inside
        except (OSError, RuntimeError):
            return None
        if not resolved.is_relative_to(self.root) or not resolved.is_file():
            return None
        return resolved

    def body(self, path: Path, compressed: bool) -> tuple[bytes, str]:
        """The bytes to send and their ETag, cached per file version."""
        mtime = path.stat().st_mtime
        cached = self.cache.get((path, compressed))
        if cached and cached[0] == mtime:
            return cached[1], cached[2]
        data = path.read_bytes()
        tag = hashlib.sha256(data).hexdigest()[:20]
        if compressed:
            data = gzip.compress(data, 6, mtime=0)
            tag += "-gz"
        self.cache[(path, compressed)] = (mtime, data, f'"{tag}"')
        return data, f'"{tag}"'


class ArticleHandler(BaseHTTPRequestHandler):
    """GET and HEAD of the built site; every other method gets 405."""

    site: Site
    timeout = 10  # seconds a client may take to send its request
    server_version = "selfattn"
    sys_version = ""

    def __getattr__(self, name: str):
        if name.startswith("do_"):  # any method without a handler below
            return self._not_allowed
        raise AttributeError(name)

    def _not_allowed(self) -> None:
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", "GET, HEAD")
        self.send_header("Content-Length", "0")
        self._security_headers()
        self.end_headers()

    def _security_headers(self) -> None:
        self.send_header("Content-Security-Policy", self.site.policy)
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def _serve(self, send_body: bool) -> None:
        self.site.fresh()
        url = urlsplit(self.path).path
        path = self.site.locate(self.path)
        if path is None:
            self._plain(HTTPStatus.NOT_FOUND, b"not found\n", send_body)
            return
        if path.name == "index.html" and not url.endswith(("/", ".html")):
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", url + "/")
            self.send_header("Content-Length", "0")
            self._security_headers()
            self.end_headers()
            return
        kind = TYPES.get(path.suffix, "application/octet-stream")
        compressed = path.suffix in COMPRESSIBLE and "gzip" in self.headers.get(
            "Accept-Encoding", ""
        )
        data, tag = self.site.body(path, compressed)
        matches = self.headers.get("If-None-Match", "")
        status = (
            HTTPStatus.NOT_MODIFIED
            if tag in [t.strip() for t in matches.split(",")]
            else HTTPStatus.OK
        )
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("ETag", tag)
        self.send_header("Cache-Control", "no-cache")  # revalidate: a rebuild shows at once
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Last-Modified", formatdate(path.stat().st_mtime, usegmt=True))
        if compressed:
            self.send_header("Content-Encoding", "gzip")
        self._security_headers()
        if status == HTTPStatus.NOT_MODIFIED:
            self.end_headers()
            return
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if send_body:
            self.wfile.write(data)

    def _plain(self, status: HTTPStatus, text: bytes, send_body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(text)))
        self._security_headers()
        self.end_headers()
        if send_body:
            self.wfile.write(text)

    def log_message(self, format: str, *args) -> None:
        pass  # a reader's server, not a log: errors that matter are printed where they happen


class ArticleServer(ThreadingHTTPServer):
    daemon_threads = True  # a stuck client never keeps the process alive

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)  # a reader hanging up is not news


def make_server(host: str, port: int, folder: Path, watch: bool = True) -> ArticleServer:
    """A server for the article built into `folder` (built now; rebuilt on change if `watch`)."""
    site = Site(folder, watch)
    site.fresh()
    handler = type("Handler", (ArticleHandler,), {"site": site})
    return ArticleServer((host, port), handler)


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False) -> int:
    """Serve until interrupted; exit status 1 with one line if the port cannot be bound."""
    if not 0 <= port <= 65535:
        print(f"selfattn serve: {port} is not a port number (0–65535)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="selfattn-") as tmp:
        try:
            server = make_server(host, port, Path(tmp))
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                reason = "is already in use; try another with --port"
            else:
                reason = f"cannot be used: {err.strerror or err}"
            print(f"selfattn serve: port {port} on {host} {reason}", file=sys.stderr)
            return 1
        if host not in LOOPBACK:
            print(
                f"selfattn serve: warning: listening on {host}, so other machines can reach it",
                file=sys.stderr,
            )
        shown = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
        url = f"http://{shown}:{server.server_port}/"
        print(f"serving the article on {url} (English: {url}en/); Ctrl-C stops", flush=True)
        if open_browser:
            webbrowser.open(url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0
