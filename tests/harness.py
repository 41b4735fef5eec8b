"""Debian Chromium, its flags, the figures audit, and timing a fresh server: for the tests,
and for `make bench`."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
# headless on a machine without a network or a GPU; without the background-networking
# flags Chromium keeps trying to reach Google's hosts
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# what each figure puts before the eye, measured in the page (browser/figures_audit.js): one
# function of a figure id, without its comment (evaluate takes an expression)
AUDIT = "\n".join(
    line
    for line in (Path(__file__).parent / "browser" / "figures_audit.js").read_text().splitlines()
    if not line.startswith("//")
)


def first_response_seconds(limit: float = 10.0) -> float:
    """Seconds from starting `selfattn serve` to its first complete 200 response."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.monotonic()
    command = [sys.executable, "-m", "selfattn", "serve", "--port", str(port)]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
        try:
            while time.monotonic() - start < limit:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                try:
                    conn.request("GET", "/")
                    if conn.getresponse().status == 200:
                        return time.monotonic() - start
                except OSError:
                    time.sleep(0.01)
                finally:
                    conn.close()
            raise TimeoutError(f"selfattn serve did not answer within {limit} s")
        finally:
            proc.terminate()
