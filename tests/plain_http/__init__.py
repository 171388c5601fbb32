"""Plain HTTP servers that are not MCP servers, on loopback, for the tests of what a newcomer
is told when a URL points at the wrong thing: Python's own ``http.server`` serving a directory
(its HTML error pages: 404 for a GET of a missing file, 501 for a POST), and one that answers
every request with a fixed status and body (a 403, a 500 with a long body); and a forward proxy
that answers every request itself, recording its request line (``forward_proxy``)."""

from __future__ import annotations

import functools
import http.server
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["fixed_answer", "forward_proxy", "static_site"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _serving(
    handler: type[http.server.BaseHTTPRequestHandler] | functools.partial[object],
) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # type: ignore[arg-type]
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def static_site() -> Iterator[str]:
    """``python -m http.server`` over a directory with an ``index.html``; yields its origin."""
    with tempfile.TemporaryDirectory() as root:
        with open(f"{root}/index.html", "w", encoding="utf-8") as page:
            page.write("<!doctype html><title>My site</title><p>hello</p>\n")
        with _serving(functools.partial(_Quiet, directory=root)) as url:
            yield url


@contextmanager
def fixed_answer(status: int, body: str, content_type: str = "text/plain") -> Iterator[str]:
    """A server answering every GET and POST with ``status`` and ``body``; yields its origin."""

    class Fixed(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    with _serving(Fixed) as url:
        yield url


@contextmanager
def forward_proxy() -> Iterator[tuple[str, list[str]]]:
    """An HTTP forward proxy that forwards nothing: it answers every request with 200 ``ok``
    and records its request line (a proxied request's names the absolute URL: ``GET
    http://host/path HTTP/1.1``); yields its origin and the request lines received."""
    lines: list[str] = []

    class Proxy(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            lines.append(self.requestline)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    with _serving(Proxy) as url:
        yield url, lines
