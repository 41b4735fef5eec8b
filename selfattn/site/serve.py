"""`selfattn serve`: build the article into a temporary folder and serve it on loopback.

The standard library's threaded HTTP server, with a handler that rebuilds when a
source file has changed since the last build.
"""

from __future__ import annotations

import errno
import functools
import sys
import tempfile
import threading
import webbrowser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .build import SITE, BuildError, build

SOURCES = (SITE / "content", SITE / "static", SITE / "templates", SITE.parent / "head.json")


def _stamp() -> float:
    """The newest modification time among the article's sources."""
    newest = 0.0
    for source in SOURCES:
        paths = [source] if source.is_file() else source.rglob("*")
        newest = max([newest, *(p.stat().st_mtime for p in paths if p.is_file())])
    return newest


class Site:
    """A built copy of the article that rebuilds itself when its sources change."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.lock = threading.Lock()
        self.built_at = -1.0

    def fresh(self) -> None:
        with self.lock:
            stamp = _stamp()
            if stamp != self.built_at:
                try:
                    build(self.folder)
                except BuildError as err:  # keep serving the last good build
                    print(f"selfattn serve: build failed: {err}", file=sys.stderr)
                self.built_at = stamp


class ArticleHandler(SimpleHTTPRequestHandler):
    site: Site

    def do_GET(self) -> None:
        self.site.fresh()
        super().do_GET()

    def do_HEAD(self) -> None:
        self.site.fresh()
        super().do_HEAD()

    def log_message(self, format: str, *args) -> None:  # quiet: one line per error only
        if args and str(args[1]).startswith(("4", "5")):
            super().log_message(format, *args)


def make_server(host: str, port: int, folder: Path) -> ThreadingHTTPServer:
    """A server for the article built into `folder` (built now, rebuilt on change)."""
    site = Site(folder)
    site.fresh()
    handler = functools.partial(
        type("Handler", (ArticleHandler,), {"site": site}), directory=str(folder)
    )
    return ThreadingHTTPServer((host, port), handler)


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False) -> int:
    """Serve until interrupted; exit status 1 with one line if the port cannot be bound."""
    with tempfile.TemporaryDirectory(prefix="selfattn-") as tmp:
        try:
            server = make_server(host, port, Path(tmp))
        except OSError as err:
            reason = (
                "is already in use"
                if err.errno == errno.EADDRINUSE
                else f"cannot be used ({err.strerror})"
            )
            print(f"selfattn serve: port {port} on {host} {reason}; try --port", file=sys.stderr)
            return 1
        if host not in ("127.0.0.1", "localhost", "::1"):
            print(
                f"selfattn serve: warning: listening on {host}, reachable from other machines",
                file=sys.stderr,
            )
        url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{server.server_port}/"
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
