"""`selfattn serve`: build the article into a temporary folder and serve it on loopback.

The standard library's file handler, with one complete build of the site as its
`directory`, plus what a reader's server needs: GET and HEAD only, no path that
resolves outside the site (symlinks included), no folder listings, a strict
Content-Security-Policy and `no-store` on every response, text gzipped for a client that
asks, no hidden file (the build's marker), at most 64 threads, and a timeout so a client
that never finishes cannot hold one. When all 64 are taken, a new connection takes the
thread of the one that has waited longest for its request's head (over a second): clients
that trickle their heads cannot keep a reader waiting behind them (200 of them, reconnecting,
held a page for 20–27 s). Not a limit per address: on loopback the reader and any flood
share one. When a source changes, the site is rebuilt into a
fresh folder and swapped in whole; a build is deleted only once no request reads it, so no
request ever sees half a site.
"""

from __future__ import annotations

import errno
import functools
import gzip
import io
import ipaddress
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import webbrowser
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from ..signals import ENDING, Stopped
from .build import (
    CONTENT,
    SITE,
    STATIC,
    TEMPLATES,
    BuildError,
    build,
    replaceable,
    short_name,
)

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}
# script-src and style-src: our files, and the one script and one stylesheet the build puts
# inside the page, each by its hash
POLICY = (
    "default-src 'self'; script-src {scripts}; style-src {styles}; img-src 'self' data: blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
# Text goes out gzipped to a client that accepts it: on a phone's network the bytes are the
# load (the page is about a third of its size so). A build never rewrites a file in place,
# so each file is compressed once.
COMPRESSIBLE = {".html", ".js", ".css", ".svg", ".json", ".txt"}
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    # loopback bytes are free, and a rebuild must show on the next load: no cache, no 304s
    "Cache-Control": "no-store",
}


def _stamp(sources: tuple[Path, ...]) -> float:
    """The newest modification time among the sources (folders too: a file was removed)."""
    newest = 0.0
    for source in sources:
        for path in [source, *source.rglob("*")] if source.is_dir() else [source]:
            with suppress(FileNotFoundError):  # an editor's temporary file, gone already
                newest = max(newest, path.stat().st_mtime)
    return newest


class Site:
    """Complete builds of the article, each in a folder of its own.

    `folder` is a symlink to the newest one, and the builds sit beside it.
    """

    CHECK_EVERY = 0.5  # seconds: a burst of requests looks at the sources once
    current: Path  # the newest complete build
    policy: str  # the Content-Security-Policy that lets the newest build's inline script run

    def __init__(self, folder: Path, watch: bool = True, content: Path = CONTENT) -> None:
        self.link = Path(folder).absolute()
        self.content = content
        self.sources = (content, STATIC, TEMPLATES, SITE.parent / "head.json")
        self.watch = watch
        self.lock = threading.Lock()  # guards `current` and `readers`
        self.building = threading.Lock()  # one build at a time
        self.readers: dict[Path, int] = {}  # every build on disk → requests reading it
        self.checked_at = time.monotonic()
        if self.link.is_dir() and not self.link.is_symlink():
            replaceable(self.link, content)  # replaced as `build` would, or OutputRefused
            shutil.rmtree(self.link)
        self.link.parent.mkdir(parents=True, exist_ok=True)
        self._rebuild()

    def _rebuild(self) -> None:
        """Build into a fresh folder and swap it in once complete; keep the last good one."""
        self.built_at = _stamp(self.sources)  # before: an edit during the build shows next time
        fresh = Path(tempfile.mkdtemp(prefix=f"{short_name(self.link)}-", dir=self.link.parent))
        try:
            built = build(fresh, content=self.content)
        except Exception as err:  # a half-saved source must not take the server down
            shutil.rmtree(fresh, ignore_errors=True)
            if not self.readers:
                raise BuildError(f"{type(err).__name__}: {err}") from err
            print(
                f"selfattn serve: build failed, serving the last good one: {err}", file=sys.stderr
            )
            return
        policy = POLICY.format(
            scripts=" ".join(["'self'", *built.scripts]),
            styles=" ".join(["'self'", *built.styles]),
        )
        link = fresh.with_name(fresh.name + ".link")
        link.symlink_to(fresh, target_is_directory=True)
        os.replace(link, self.link)  # atomic: `folder` never names half a site
        with self.lock:
            self.current, self.readers[fresh], self.policy = fresh, 0, policy
            self._sweep()

    def _sweep(self) -> None:
        """Delete the builds that are neither the newest nor read by a request."""
        for old, reading in list(self.readers.items()):
            if old != self.current and reading == 0:
                shutil.rmtree(old, ignore_errors=True)
                del self.readers[old]

    def _refresh(self) -> None:
        """Rebuild if a source changed; requests that come meanwhile get the last build."""
        if not self.watch or not self.building.acquire(blocking=False):
            return
        try:
            if time.monotonic() - self.checked_at >= self.CHECK_EVERY:
                self.checked_at = time.monotonic()
                if _stamp(self.sources) != self.built_at:
                    self._rebuild()
        finally:
            self.building.release()

    @contextmanager
    def checkout(self) -> Iterator[Path]:
        """The newest build (rebuilt first if a source changed), kept on disk until released."""
        self._refresh()
        with self.lock:
            current = self.current
            self.readers[current] += 1
        try:
            yield current
        finally:
            with self.lock:
                self.readers[current] -= 1
                self._sweep()


class _HeadDeadline:
    """The request's reader, whose lines must all come before one deadline: a socket's
    timeout bounds each read, so a client sending a header line every few seconds would
    hold its thread forever (64 of them, every thread)."""

    def __init__(self, rfile, connection: socket.socket) -> None:
        self.rfile, self.connection, self.deadline = rfile, connection, float("inf")

    def readline(self, size: int = -1) -> bytes:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request's head took too long")
        self.connection.settimeout(min(left, 3600))
        return self.rfile.readline(size)

    def __getattr__(self, name: str):
        return getattr(self.rfile, name)


class ArticleHandler(SimpleHTTPRequestHandler):
    """GET and HEAD of one build of the site; every other method gets 405."""

    extensions_map = TYPES
    timeout = 10  # seconds a client may take to send its request's line and headers, in all
    server_version = "selfattn"
    sys_version = ""

    def __init__(self, request, client_address, server) -> None:
        assert isinstance(server, ArticleServer)
        with server.site.checkout() as folder:  # the whole exchange reads this one build
            super().__init__(request, client_address, server, directory=str(folder))

    def setup(self) -> None:
        super().setup()
        self.rfile = _HeadDeadline(self.rfile, self.connection)  # type: ignore[assignment]  # reads as one

    def handle_one_request(self) -> None:
        assert isinstance(self.rfile, _HeadDeadline)
        assert isinstance(self.server, ArticleServer)
        self.rfile.deadline = time.monotonic() + (self.timeout or 0)  # each request's head anew
        self.server.waiting(self.connection)
        super().handle_one_request()

    def parse_request(self) -> bool:
        # HTTP/0.9 (named, or a request line without a version): its answers carry no
        # headers, so no policy; refused at once, before any header is waited for
        line: bytes = getattr(self, "raw_requestline", b"")  # read by handle_one_request
        words = line.split()
        if len(words) == 2 or (len(words) == 3 and words[2].startswith(b"HTTP/0.")):
            parsed, self.close_connection = False, True
            self.requestline = str(line, "iso-8859-1").rstrip("\r\n")  # logged
            self.request_version = "HTTP/1.0"
            self.command = ""  # read by send_error, and set only by the parse skipped here
            self.send_error(HTTPStatus.HTTP_VERSION_NOT_SUPPORTED)
        else:
            parsed = super().parse_request()  # the headers are read: the answer has its own time
        assert isinstance(self.server, ArticleServer)
        self.server.answering(self.connection)
        self.connection.settimeout(self.timeout)
        if not parsed:
            return False
        # the handler would answer 304 to it, and a 304 is a cache at work: there is none
        del self.headers["If-Modified-Since"]
        if self.command in ("GET", "HEAD"):
            return True
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", "GET, HEAD")
        self.send_header("Content-Length", "0")
        self.end_headers()
        return False

    def send_response_only(self, code, message=None) -> None:
        # an error found before the request line's version is read (HTTP/2.0, a bad one, no
        # headers in time) is answered as to HTTP/0.9, without headers and so without a
        # policy: every answer has them
        if self.request_version == "HTTP/0.9":
            self.request_version = "HTTP/1.0"
        super().send_response_only(code, message)

    def send_head(self):
        path = self.translate_path(self.path)
        root = os.path.realpath(self.directory)
        if "\x00" in path or os.path.commonpath([root, os.path.realpath(path)]) != root:
            self.send_error(HTTPStatus.NOT_FOUND)  # a symlink that leads out of the site
            return None
        if any(part.startswith(".") for part in Path(os.path.relpath(path, root)).parts):
            self.send_error(HTTPStatus.NOT_FOUND)  # a hidden file: the build's marker, not a page
            return None
        if os.path.isdir(path) and urlsplit(self.path).path.endswith("/"):
            path = os.path.join(path, "index.html")
        if (
            os.path.splitext(path)[1] in COMPRESSIBLE
            and accepts_gzip(self.headers.get("Accept-Encoding", ""))
            and os.path.isfile(path)
        ):
            stat = os.stat(path)
            body = gzipped(os.path.realpath(path), stat.st_mtime_ns, stat.st_size)
            if len(body) >= stat.st_size:  # a file too small to gain goes as it is
                return super().send_head()
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()

    def list_directory(self, path):
        self.send_error(HTTPStatus.NOT_FOUND)
        return None

    def finish(self) -> None:
        assert isinstance(self.server, ArticleServer)
        self.server.answering(self.connection)
        super().finish()

    def end_headers(self) -> None:
        assert isinstance(self.server, ArticleServer)
        self.send_header("Content-Security-Policy", self.server.site.policy)
        for name, value in HEADERS.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        pass  # a reader's server, not a log: errors that matter are printed where they happen


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header takes gzip: named, with no q=0 ("gzip;q=0" refuses);
    parameters other than q ("gzip;q=1;foo=bar") are left aside."""
    for part in header.lower().split(","):
        name, *params = part.split(";")
        if name.strip() != "gzip":
            continue
        weights = [p.strip()[2:] for p in params if p.strip().startswith("q=")]
        try:
            return all(float(q) > 0 for q in weights)
        except ValueError:
            return False  # a weight we cannot read: send the bytes as they are
    return False


@functools.lru_cache(maxsize=64)  # the files a page loads, across a few rebuilds
def gzipped(path: str, mtime_ns: int, size: int) -> bytes:
    """A file's bytes gzipped (same bytes for the same file: no timestamp inside)."""
    return gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)


class ArticleServer(ThreadingHTTPServer):
    """A thread per connection, HANDLERS at most, over one `Site`."""

    daemon_threads = True  # a stuck client never keeps the process alive
    # connections waiting to be accepted: socketserver's 5 fills at once when a page asks
    # for its modules together, and the kernel drops the rest for a second before they retry
    request_queue_size = 128
    # Threads at once: a page needs a handful, and a flood of connections must not become a
    # flood of threads. The next connection waits, accepted, for one to end (a client that
    # stalls is dropped after ArticleHandler.timeout), the rest in the queue above.
    HANDLERS = 64
    # When every thread is taken, the connection that has waited longest for its request's
    # head gives its thread up, if it has waited this long: a head on loopback comes in
    # milliseconds, so a reader mid-request is never the one dropped, only a slow client (or
    # an idle kept-alive connection, which a browser opens again).
    DROP_AFTER = 1.0
    site: Site

    def __init__(self, *args, **kwargs) -> None:
        self.slots = threading.BoundedSemaphore(self.HANDLERS)
        self.closing = threading.Event()
        self.heads: dict[socket.socket, float] = {}  # connections waiting for a head, since
        self.heads_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def waiting(self, connection: socket.socket) -> None:
        """`connection` waits for a request's head from now."""
        with self.heads_lock:
            self.heads[connection] = time.monotonic()

    def answering(self, connection: socket.socket) -> None:
        """`connection` has its head (or is done): it is no longer one to drop."""
        with self.heads_lock:
            self.heads.pop(connection, None)

    def drop_slowest_head(self) -> None:
        """Hang up on the connection that has waited longest for its head, if long enough:
        its read returns, its handler ends, and its thread is free."""
        with self.heads_lock:
            if not self.heads:
                return
            slowest = min(self.heads, key=self.heads.__getitem__)
            if time.monotonic() - self.heads[slowest] < self.DROP_AFTER:
                return
            del self.heads[slowest]
        with suppress(OSError):
            slowest.shutdown(socket.SHUT_RDWR)

    def process_request(self, request, client_address) -> None:
        taken = self.slots.acquire(blocking=False)
        while not taken:
            self.drop_slowest_head()  # at once: the connections queued behind this one wait
            taken = self.slots.acquire(timeout=0.25)
            if not taken and self.closing.is_set():  # waiting must not hold up shutdown()
                self.shutdown_request(request)
                return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()  # no thread was started to release it
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def shutdown(self) -> None:
        self.closing.set()
        super().shutdown()

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)  # a reader hanging up is not news


class ArticleServer6(ArticleServer):
    """The same on IPv6; bound to `::`, it takes IPv4 as well where the system lets it."""

    address_family = socket.AF_INET6

    def server_bind(self) -> None:
        with suppress(OSError):
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def _family(host: str, port: int) -> socket.AddressFamily:
    """AF_INET6 for a host only IPv6 reaches (`::1`, `::`), else AF_INET."""
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return socket.AF_INET  # binding says what is wrong with the host
    families = [family for family, *_ in found]
    return socket.AF_INET if socket.AF_INET in families else families[0]


def unbracketed(host: str) -> str:
    """`host` without the brackets an IPv6 address wears in a URL (`[::1]`, as typed)."""
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def _address(host: str, port: int) -> tuple[socket.AddressFamily, tuple]:
    """The family and the address to bind for `host`: an IPv6 address with a scope (a zone:
    `fe80::1%eth0`, `fe80::1%2`) as the four parts IPv6 binds to, its interface's index
    among them (given as two, it was bound with scope 0 and refused; `::1%lo` was not
    resolved at all); any other as (host, port)."""
    host = unbracketed(host)
    address, zone, scope = host.partition("%")
    if zone:
        index = int(scope) if scope.isdigit() else socket.if_nametoindex(scope)
        return socket.AF_INET6, (address, port, 0, index)
    return _family(host, port), (host, port)


def make_server(
    host: str, port: int, folder: Path, watch: bool = True, content: Path = CONTENT
) -> ArticleServer:
    """A server for the article built into `folder` (built now; rebuilt on change if `watch`).

    The port is bound before the build, so a port in use fails at once.
    """
    family, address = _address(host, port)
    kind = ArticleServer6 if family == socket.AF_INET6 else ArticleServer
    server = kind(address, ArticleHandler)
    try:
        server.site = Site(folder, watch, content)
    except BaseException:
        server.server_close()
        raise
    return server


def loopback(host: str) -> bool:
    """Whether `host` names this machine alone: "localhost", or an address in 127.0.0.0/8 or
    ::1 written any way ("0::1", "127.1.2.3", "::ffff:127.0.0.1")."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


@contextmanager
def first_signal_ends() -> Iterator[None]:
    """Within the block, the first SIGINT, SIGTERM or SIGHUP raises (KeyboardInterrupt, or
    Stopped(128 + the signal)) and every one after it is ignored, so the cleanup it starts
    (the temporary build's deletion) runs to its end: a second Ctrl-C a millisecond after
    the first left /tmp/selfattn-* behind (hostile pass 6). The handlers are put back after.
    From the main thread only, where handlers are set; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    ending = [s for n in ENDING if (s := getattr(signal, n, None))]

    def first(signum: int, _frame: object) -> None:
        for s in ending:  # before raising: what comes next finds them ignored
            signal.signal(s, signal.SIG_IGN)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Stopped(128 + signum)

    previous = {s: signal.signal(s, first) for s in ending}
    try:
        yield
    finally:
        for s, handler in previous.items():
            if handler is not None:  # None: set outside Python, and cannot be set again
                signal.signal(s, handler)


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False) -> int:
    """Serve until interrupted; exit status 1 with one line if the port cannot be bound."""
    if not 0 <= port <= 65535:
        print(f"selfattn serve: {port} is not a port number (0–65535)", file=sys.stderr)
        return 1
    host = unbracketed(host)
    # SIGTERM and SIGHUP end it as Ctrl-C does, deleting the temporary build on the way out
    with first_signal_ends(), tempfile.TemporaryDirectory(prefix="selfattn-") as tmp:
        try:
            server = make_server(host, port, Path(tmp) / "site")
        except BuildError as err:
            print(f"selfattn serve: cannot build the article: {err}", file=sys.stderr)
            return 1
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                reason = "is already in use; try another with --port"
            else:
                reason = f"cannot be used: {err.strerror or err}"
            print(f"selfattn serve: port {port} on {host} {reason}", file=sys.stderr)
            return 1
        if not loopback(host):
            print(
                f"selfattn serve: warning: listening on {host}, so other machines can reach it",
                file=sys.stderr,
            )
        shown = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
        # an IPv6 address in a URL, its zone's % written %25 (RFC 6874)
        shown = f"[{shown.replace('%', '%25')}]" if ":" in shown else shown
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
