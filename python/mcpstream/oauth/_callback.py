"""The login listener's HTTP server (``LoopbackRedirectHandler``), kept apart so that
``http.server`` is imported with the first listener, not with mcpstream."""

from __future__ import annotations

import contextlib
import http.server
import socket
import threading
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["CALLBACK_PATH", "CallbackHandler", "CallbackServer"]

CALLBACK_PATH = "/callback"
PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>mcpstream</title></head>"
    "<body style='font-family:sans-serif'><h2>{title}</h2><p>{text}</p></body></html>"
)


class CallbackServer(http.server.HTTPServer):
    """The listener. Each connection is held to the login's deadline, whatever the client
    does: a socket timeout of what remains, and a timer that shuts the socket down at the
    deadline (a client trickling a byte at a time keeps each read short), so an idle or slow
    local connection cannot stall the login past ``timeout_s``."""

    expected_state: str | None = None
    callback_url: str | None = None
    deadline: float = 0.0

    def process_request(self, request: Any, client_address: Any) -> None:
        remaining = max(0.05, self.deadline - time.monotonic())
        request.settimeout(remaining)
        watchdog = threading.Timer(remaining, _shut_down, (request,))
        watchdog.daemon = True
        watchdog.start()
        try:
            super().process_request(request, client_address)
        finally:
            watchdog.cancel()


def _shut_down(connection: socket.socket) -> None:
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)


class CallbackHandler(http.server.BaseHTTPRequestHandler):
    server: CallbackServer

    def do_GET(self) -> None:
        split = urlsplit(self.path)
        params = parse_qs(split.query)
        states = params.get("state") or []
        state = states[0] if states else None
        if split.path != CALLBACK_PATH or state != self.server.expected_state:
            # Not this login's callback (a favicon, a stale tab, a stray local request).
            self._reply(404, "Not found", "This is not the callback mcpstream is waiting for.")
            return
        host, port = self.server.server_address[:2]
        self.server.callback_url = f"http://{host!s}:{port}{self.path}"
        if params.get("error"):
            self._reply(400, "Authorization failed", "Return to the terminal for details.")
        else:
            self._reply(200, "Logged in", "You can close this tab and return to the terminal.")

    def _reply(self, status: int, title: str, text: str) -> None:
        body = PAGE.format(title=title, text=text).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        # The request line carries the authorization code: never print it.
        return
