"""A loopback MCP server that replays prepared bodies, for the transport benchmarks.

Run it as ``python benches/replay_server.py [--port 0] [--framing chunked|length] [--tls CERT
KEY] [--era legacy|modern]``: it prints ``PORT <n>`` on its first line and serves on
127.0.0.1 (over TLS with the certificate and key files given) until stdin closes or it is
terminated.
It runs in a process of its own, so that it never competes with the client under test for the
GIL, and does as little as possible per request, so that the client is what is measured:

- every body is prepared once, at start, as a template split around the JSON-RPC id; answering a
  call joins three ``bytes`` objects (for small bodies) or hands them to ``sendmsg`` (large
  ones), with the request's id (its JSON text) in the middle;
- each connection is served by a thread of its own over a blocking socket with ``TCP_NODELAY``
  (no Nagle delay on the small answers of keep-alive requests), and ``sendall`` writes the large
  bodies without copying them.

It answers what an MCP client sends: ``server/discover`` with ``--era modern`` (2026-07-28),
``initialize`` (with an ``MCP-Session-Id``), notifications
(202), ``tools/list`` (the tools below, for clients that list before calling), ``tools/call``
(the tool's prepared answer), anything else (a JSON-RPC "method not found"); DELETE gets 200 and
GET 405 (no stream for server messages), but for ``GET /connections``, whose body is the number
of connections accepted so far (how a benchmark counts the connections its clients opened).
The tools, one per workload of ``test_transport_throughput.py``:

- ``large``: one SSE event carrying a text result of ``LARGE_TEXT_BYTES`` bytes;
- ``notifications``: ``NOTIFICATIONS`` ``notifications/progress`` events with event ids, then the
  result ``"done"``;
- ``small``: a tiny result in one SSE event (what the SDK's server sends by default);
- ``small_json``: the same result as an ``application/json`` body;
- ``large_json``: the ``large`` result as an ``application/json`` body (what reaches clients that
  cap SSE events at 1 MiB, as the SDK's transport does by default).

``running()`` starts it in a process of its own for a benchmark and gives its URL.

SSE bodies are sent with chunked transfer coding by default, as servers stream them
(``--framing length`` sends a Content-Length instead).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

LARGE_TEXT_BYTES = 16 * 1024 * 1024
NOTIFICATIONS = 20_000
SMALL_TEXT = "ok"
NOTIFICATIONS_DONE_TEXT = "done"
SESSION_ID = "replay-bench-session"
_LARGE_WRITE = 64 * 1024
"""Bodies at least this large are written part by part (no joined copy)."""
_ACCEPTED = [0]
"""The connections accepted so far (``GET /connections``)."""
MODERN = [False]
"""Whether ``server/discover`` is answered (``--era modern``: a server of 2026-07-28, whose
every request is stateless; else "method not found", a server of the handshake era)."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def large_text() -> str:
    """The text of the ``large`` tool's result: ASCII prose, ``LARGE_TEXT_BYTES`` long."""
    # Imported here, not on top: the SDK's runner imports this module for its constants and
    # must not load mcpstream (it reports which codec its process loaded).
    from mcpstream.benchmark.workloads import lorem

    return lorem(LARGE_TEXT_BYTES)


def _tool_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


@dataclass(frozen=True, slots=True)
class Template:
    """A body with the JSON-RPC id of the response left out: ``head`` + id + ``tail``."""

    content_type: bytes
    head: bytes
    tail: bytes

    @classmethod
    def response(
        cls, result: Any, *, sse: bool, before: bytes = b"", event_id: str | None = None
    ) -> Template:
        """The response carrying ``result``, as one SSE event after ``before`` (more events)
        or as a JSON body."""
        if not sse:
            return cls(
                b"application/json",
                b'{"jsonrpc":"2.0","id":',
                f',"result":{_dumps(result)}}}'.encode(),
            )
        id_line = f"id: {event_id}\n" if event_id is not None else ""
        head = before + f'{id_line}event: message\ndata: {{"jsonrpc":"2.0","id":'.encode()
        return cls(b"text/event-stream", head, f',"result":{_dumps(result)}}}\n\n'.encode())

    def size(self, request_id: bytes) -> int:
        """The body's length with ``request_id`` in place."""
        return len(self.head) + len(request_id) + len(self.tail)


def notification_events(count: int) -> bytes:
    """``count`` ``notifications/progress`` events with event ids (the codec workloads' shape)."""
    from mcpstream.benchmark.workloads import progress_events  # not on top: see large_text

    return progress_events(count).encode()


TOOLS: dict[str, Template] = {}
"""The ``tools/call`` answers by tool name, built by ``prepare``."""


def prepare() -> None:
    """Build every prepared body (once, before serving)."""
    large = _tool_result(large_text())
    TOOLS["large"] = Template.response(large, sse=True)
    TOOLS["large_json"] = Template.response(large, sse=False)
    TOOLS["notifications"] = Template.response(
        _tool_result(NOTIFICATIONS_DONE_TEXT),
        sse=True,
        before=notification_events(NOTIFICATIONS),
        event_id=f"ev-{NOTIFICATIONS}",
    )
    TOOLS["small"] = Template.response(_tool_result(SMALL_TEXT), sse=True)
    TOOLS["small_json"] = Template.response(_tool_result(SMALL_TEXT), sse=False)


def _tools_list() -> dict[str, Any]:
    schema = {"type": "object", "properties": {}}
    return {
        "tools": [
            {"name": name, "description": f"replays the {name} body", "inputSchema": schema}
            for name in sorted(TOOLS)
        ]
    }


class Connection:
    """One client connection: reads requests (Content-Length bodies) and answers them."""

    def __init__(self, sock: socket.socket, *, chunked: bool) -> None:
        self.sock = sock
        self.chunked = chunked
        self.buffer = bytearray()

    def _read_request(self) -> tuple[str, dict[bytes, bytes], bytes] | None:
        """The next request (method, lower-cased headers, body), or None at end of stream."""
        while (end := self.buffer.find(b"\r\n\r\n")) < 0:
            if not self._fill():
                return None
        head = bytes(self.buffer[:end]).split(b"\r\n")
        del self.buffer[: end + 4]
        request_line = head[0].split(b" ", 2)
        method = request_line[0].decode("ascii")
        headers: dict[bytes, bytes] = {b":path": request_line[1] if len(request_line) > 1 else b""}
        for line in head[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get(b"content-length", b"0"))
        while len(self.buffer) < length:
            if not self._fill():
                return None
        body = bytes(self.buffer[:length])
        del self.buffer[:length]
        return method, headers, body

    def _fill(self) -> bool:
        data = self.sock.recv(256 * 1024)
        if not data:
            return False
        self.buffer += data
        return True

    def _send(self, parts: list[bytes]) -> None:
        if sum(len(part) for part in parts) < _LARGE_WRITE:
            self.sock.sendall(b"".join(parts))
            return
        for part in parts:
            self.sock.sendall(part)

    def _status(self, status: bytes, *, extra: bytes = b"") -> None:
        self._send([b"HTTP/1.1 " + status + b"\r\ncontent-length: 0\r\n" + extra + b"\r\n"])

    def _body(self, template: Template, request_id: bytes, *, extra: bytes = b"") -> None:
        size = template.size(request_id)
        head = b"HTTP/1.1 200 OK\r\ncontent-type: " + template.content_type + b"\r\n" + extra
        if template.content_type == b"text/event-stream":
            head += b"cache-control: no-cache\r\n"
            if self.chunked:
                head += b"transfer-encoding: chunked\r\n\r\n" + b"%x\r\n" % size
                self._send([head, template.head, request_id, template.tail + b"\r\n0\r\n\r\n"])
                return
        head += b"content-length: %d\r\n\r\n" % size
        self._send([head, template.head, request_id, template.tail])

    def _post(self, body: bytes) -> None:
        message = json.loads(body)
        method = message.get("method")
        if "id" not in message or method is None:
            self._status(b"202 Accepted")  # notifications, and replies to server requests
            return
        request_id = _dumps(message["id"]).encode()
        params = message.get("params") or {}
        if method == "tools/call" and params.get("name") in TOOLS:
            self._body(TOOLS[params["name"]], request_id)
        elif method == "server/discover" and MODERN[0]:
            result = {
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "replay-bench", "version": "1.0"},
            }
            self._body(Template.response(result, sse=False), request_id)
        elif method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "replay-bench", "version": "1.0"},
            }
            session = b"mcp-session-id: " + SESSION_ID.encode() + b"\r\n"
            self._body(Template.response(result, sse=False), request_id, extra=session)
        elif method == "tools/list":
            self._body(Template.response(_tools_list(), sse=False), request_id)
        elif method == "ping":
            self._body(Template.response({}, sse=False), request_id)
        else:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            tail = f',"error":{_dumps(error)}}}'.encode()
            self._body(Template(b"application/json", b'{"jsonrpc":"2.0","id":', tail), request_id)

    def serve(self) -> None:
        """Answer requests until the client closes the connection."""
        try:
            while (request := self._read_request()) is not None:
                method, _headers, body = request
                if method == "POST":
                    self._post(body)
                elif method == "DELETE":
                    self._status(b"200 OK")
                elif method == "GET" and _headers.get(b":path") == b"/connections":
                    count = b"%d" % _ACCEPTED[0]
                    self._send(
                        [b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(count), count]
                    )
                else:
                    self._status(b"405 Method Not Allowed", extra=b"allow: POST, DELETE\r\n")
        except OSError:
            pass
        finally:
            self.sock.close()


def serve(port: int, *, chunked: bool, tls: ssl.SSLContext | None = None) -> None:
    """Listen on 127.0.0.1:``port``, print ``PORT <n>``, and serve each connection on a thread
    (over TLS with the ``tls`` context: the handshake on that thread)."""
    prepare()
    listener = socket.create_server(("127.0.0.1", port), backlog=64)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    threading.Thread(target=_exit_when_stdin_closes, daemon=True).start()
    while True:
        sock, _address = listener.accept()
        _ACCEPTED[0] += 1
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=_serve_one, args=(sock, chunked, tls), daemon=True).start()


def _serve_one(sock: socket.socket, chunked: bool, tls: ssl.SSLContext | None) -> None:
    if tls is not None:
        try:
            sock = tls.wrap_socket(sock, server_side=True)
        except OSError:
            sock.close()
            return
    Connection(sock, chunked=chunked).serve()


def _exit_when_stdin_closes() -> None:
    sys.stdin.read()
    os._exit(0)


@contextlib.contextmanager
def running(*options: str) -> Iterator[str]:
    """The URL of a replay server started in a process of its own (with ``options``, those of
    the command line) for as long as this lasts; it exits when its stdin closes."""
    process = subprocess.Popen(
        [sys.executable, __file__, *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        line = process.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"the replay server did not start: {line!r}")
        scheme = "https" if "--tls" in options else "http"
        yield f"{scheme}://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> None:
    """Parse the command line and serve."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--framing", choices=("chunked", "length"), default="chunked")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS")
    parser.add_argument("--era", choices=("legacy", "modern"), default="legacy")
    args = parser.parse_args()
    MODERN[0] = args.era == "modern"
    tls = None
    if args.tls:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(*args.tls)
    serve(args.port, chunked=args.framing == "chunked", tls=tls)


if __name__ == "__main__":
    main()
