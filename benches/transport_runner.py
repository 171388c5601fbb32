"""One client under test, driven round by round over a pipe, for the transport benchmarks.

``python benches/transport_runner.py --client CLIENT --workload NAME --url URL`` opens an
MCP session with the replay server (``replay_server.py``) the way a user of that client does,
runs the warm-up rounds, prints ``READY {...}`` and then runs one round of the workload for every
``run`` line it reads on stdin, answering each with one JSON line: the round's own time
(``inner_s``) and what it received (``check``), which the benchmark compares with what the server
sent, so that a broken path cannot pass for a fast one. ``quit`` or the end of stdin closes the
session.

The clients: ``sync`` is ``mcpstream.transport_http.McpHttpTransport``, ``async`` is
``AsyncMcpHttpTransport`` (under ``asyncio.run``), both with the codec backend that
``MCPSTREAM_BACKEND`` selects; ``sdk`` is the official ``mcp`` SDK's ``ClientSession`` over its
``streamable_http_client``, with notifications collected by a ``message_handler``;
``reference`` is the reference transport (``../shared/reference/transport_http.py`` beside the
checkout, loaded by ``load_reference``); ``httpx`` and ``socket`` are the floors of the small
calls: the same POSTs by bare ``httpx.Client.stream`` and over a bare keep-alive socket; for
``large``, ``httpx`` reads the body whole and parses its event's data with ``orjson``; for
``concurrent``, ``httpx`` and ``httpx_async`` are the same sessions' requests by bare
``httpx.Client`` (one session at a time) and ``httpx.AsyncClient`` (all at once).
``sync_httpx2`` and ``async_httpx2`` are the two transports over a host's default
``httpx2.Client`` / ``httpx2.AsyncClient``, ``sync_own_httpx2`` and ``async_own_httpx2`` the
two with a client of their own on httpx2 (``http_stack="httpx2"``), and ``httpx2`` the bare floor
of ``httpx`` on httpx2.

A process per client and workload: the codec backend is chosen when ``mcpstream.codec`` is first
imported, and every client gets a fresh interpreter and connection pool. Protocol lines go to
the process's original stdout; anything a library prints goes to stderr.

The workloads (the tools of the replay server): ``large`` (one call, a 16 MiB text result),
``notifications`` (one call streaming 20,000 progress notifications before its result), ``small``
and ``small_json`` (``SMALL_CALLS`` calls with a tiny result, as SSE or as a JSON body);
``small300`` (``SESSION_CALLS`` small SSE calls on one session); ``open`` (``OPENS`` sessions
opened one after the other: constructor, handshake, a first small call, close); ``concurrent``
(``SESSIONS`` sessions of ``CALLS_PER_SESSION`` small calls each: all at once on one event loop
with ``async``, one at a time with ``sync``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import importlib.util
import json
import os
import socket
import sys
import tempfile
import time
import types
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, Any

SMALL_CALLS = 1_000
SESSION_CALLS = 300
OPENS = 20
SESSIONS = 100
CALLS_PER_SESSION = 5
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "transport_http.py"
"""The reference transport, in the ``shared/`` directory beside the checkout (may be absent)."""
CALL_TIMEOUT_S = 120.0
MAX_EVENT_BYTES = 64 * 1024 * 1024
"""The SSE event cap given to every client: above the large result's event (16 MiB of text and
its envelope), which both clients' defaults refuse (mcpstream caps events at 16 MiB, the SDK at
1 MiB)."""
MAX_QUEUED_NOTIFICATIONS = 100_000
"""mcpstream's notification queue bound for the benchmark: above the flood's 20,000, which the
default (10,000, oldest dropped) would cut; the SDK client hands every one to its handler."""
PROTOCOL_VERSION = "2025-11-25"
INITIALIZE_PARAMS = {
    "protocolVersion": PROTOCOL_VERSION,
    "capabilities": {},
    "clientInfo": {"name": "mcpstream-bench", "version": "1"},
}
WARMUP_ROUNDS = {
    "large": 2,
    "notifications": 2,
    "small": 1,
    "small_json": 1,
    "small300": 1,
    "open": 1,
    "concurrent": 1,
}

Check = dict[str, Any]


def _tool_text(result: Any) -> str:
    """The text of a ``tools/call`` result as JSON (mcpstream hands the result over parsed)."""
    return str(result["content"][0]["text"])


def _large_check(text: str) -> Check:
    """What the benchmark compares for the large result: its length and its two ends."""
    return {"text_chars": len(text), "ends": [text[:12], text[-12:]]}


def _call_result(tool: str, response: Any) -> Any:
    """The result of an mcpstream transport's ``tools/call`` response; an error fails."""
    if response.error is not None:
        raise RuntimeError(f"tools/call {tool} failed: {response.error}")
    return response.result


def _progress_check(result: Any, transport: Any) -> Check:
    """What the benchmark compares for the notifications call: the result's text and how many
    progress notifications the transport queued meanwhile."""
    notifications = transport.drain_notifications()
    progress = sum(1 for n in notifications if n.method == "notifications/progress")
    return {"text": _tool_text(result), "notifications": progress}


def load_reference() -> types.ModuleType | None:
    """The reference transport module, or None when ``REFERENCE`` is absent. It imports its
    siblings relatively (``errors``, ``jsonrpc``...): it is loaded inside a synthetic package
    whose siblings of those names are mcpstream's modules."""
    if not REFERENCE.is_file():
        return None
    import mcpstream

    root = types.ModuleType("_mcpstream_reference")
    root.__path__ = []
    root.__dict__["__version__"] = mcpstream.__version__
    package = types.ModuleType("_mcpstream_reference.shared")
    package.__path__ = []
    sys.modules[root.__name__], sys.modules[package.__name__] = root, package
    for name in ("errors", "jsonrpc", "models", "oauth", "oauth_store", "server_requests"):
        sys.modules[f"{package.__name__}.{name}"] = importlib.import_module(f"mcpstream.{name}")
    spec = importlib.util.spec_from_file_location(f"{package.__name__}.transport_http", REFERENCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _small_calls(call: Callable[[], Any], count: int) -> Check:
    return {"calls_ok": sum(1 for _ in range(count) if call() == "ok")}


# -- mcpstream, sync ----------------------------------------------------------------------------


class SyncClient:
    """``McpHttpTransport`` (or the reference transport, ``reference``) with the usual
    handshake; each round is one workload run."""

    def __init__(
        self,
        url: str,
        *,
        reference: bool = False,
        host_httpx2: bool = False,
        http_stack: str | None = None,
    ) -> None:
        from mcpstream.models import ResolvedMcpServer

        self.url, self.reference, self.host_httpx2 = url, reference, host_httpx2
        self.http_stack = http_stack
        self.http: Any = None
        server = ResolvedMcpServer(id="bench", url=url)
        if reference:
            module = load_reference()
            assert module is not None, f"{REFERENCE} is missing"
            self.transport = module.McpHttpTransport(
                server=server, workspace_root=Path(tempfile.gettempdir())
            )
        else:
            from mcpstream.transport_http import McpHttpTransport

            if host_httpx2:  # a host's own httpx2 client, default settings
                import httpx2

                self.http = httpx2.Client()
            self.transport = McpHttpTransport(
                server=server,
                workspace_root=Path(tempfile.gettempdir()),
                max_event_bytes=MAX_EVENT_BYTES,
                max_queued_notifications=MAX_QUEUED_NOTIFICATIONS,
                client=self.http,
                http_stack=http_stack,
            )
        initialized = self.transport.request(
            method="initialize", params=INITIALIZE_PARAMS, timeout_s=CALL_TIMEOUT_S
        )
        self.transport.set_negotiated_protocol_version(initialized.result["protocolVersion"])
        self.transport.send_notification(method="notifications/initialized", params=None)

    def _call(self, tool: str) -> Any:
        response = self.transport.request(
            method="tools/call", params={"name": tool, "arguments": {}}, timeout_s=CALL_TIMEOUT_S
        )
        return _call_result(tool, response)

    def round(self, workload: str) -> Check:
        """One run of ``workload``; returns what it received."""
        if workload == "large":
            return _large_check(_tool_text(self._call("large")))
        if workload == "notifications":
            return _progress_check(self._call("notifications"), self.transport)
        if workload in ("open", "concurrent"):
            sessions = OPENS if workload == "open" else SESSIONS
            calls = 1 if workload == "open" else CALLS_PER_SESSION
            return {"calls_ok": sum(self._session(calls)["calls_ok"] for _ in range(sessions))}
        count = SESSION_CALLS if workload == "small300" else SMALL_CALLS
        tool = "small" if workload == "small300" else workload
        return _small_calls(lambda: _tool_text(self._call(tool)), count)

    def _session(self, calls: int) -> Check:
        """Open a session, make ``calls`` small calls, close it."""
        client = SyncClient(
            self.url,
            reference=self.reference,
            host_httpx2=self.host_httpx2,
            http_stack=self.http_stack,
        )
        try:
            return _small_calls(lambda: _tool_text(client._call("small")), calls)
        finally:
            client.close()

    def close(self) -> None:
        """End the session (DELETE), and close the host's client."""
        self.transport.close()
        if self.http is not None:
            self.http.close()


# -- mcpstream, async ---------------------------------------------------------------------------


class AsyncClient:
    """``AsyncMcpHttpTransport`` with the usual handshake; each round is one workload run."""

    def __init__(
        self, url: str, *, host_httpx2: bool = False, http_stack: str | None = None
    ) -> None:
        from mcpstream.models import ResolvedMcpServer
        from mcpstream.transport_http import AsyncMcpHttpTransport

        self.url, self.host_httpx2, self.http_stack = url, host_httpx2, http_stack
        self.http: Any = None
        if host_httpx2:  # a host's own httpx2 client, default settings
            import httpx2

            self.http = httpx2.AsyncClient()
        self.transport = AsyncMcpHttpTransport(
            server=ResolvedMcpServer(id="bench", url=url),
            workspace_root=Path(tempfile.gettempdir()),
            max_event_bytes=MAX_EVENT_BYTES,
            max_queued_notifications=MAX_QUEUED_NOTIFICATIONS,
            client=self.http,
            http_stack=http_stack,
        )

    async def open(self) -> None:
        """Initialize the session."""
        initialized = await self.transport.request(
            method="initialize", params=INITIALIZE_PARAMS, timeout_s=CALL_TIMEOUT_S
        )
        self.transport.set_negotiated_protocol_version(initialized.result["protocolVersion"])
        await self.transport.send_notification(method="notifications/initialized", params=None)

    async def _call(self, tool: str) -> Any:
        response = await self.transport.request(
            method="tools/call", params={"name": tool, "arguments": {}}, timeout_s=CALL_TIMEOUT_S
        )
        return _call_result(tool, response)

    async def round(self, workload: str) -> Check:
        """One run of ``workload``; returns what it received."""
        if workload == "large":
            return _large_check(_tool_text(await self._call("large")))
        if workload == "notifications":
            return _progress_check(await self._call("notifications"), self.transport)
        if workload == "open":
            calls = [await self._session(1) for _ in range(OPENS)]
            return {"calls_ok": sum(calls)}
        if workload == "concurrent":
            sessions = [self._session(CALLS_PER_SESSION) for _ in range(SESSIONS)]
            return {"calls_ok": sum(await asyncio.gather(*sessions))}
        count = SESSION_CALLS if workload == "small300" else SMALL_CALLS
        tool = "small" if workload == "small300" else workload
        calls = 0
        for _ in range(count):
            calls += _tool_text(await self._call(tool)) == "ok"
        return {"calls_ok": calls}

    async def _session(self, calls: int) -> int:
        """Open a session, make ``calls`` small calls, close it; the calls that succeeded."""
        client = AsyncClient(self.url, host_httpx2=self.host_httpx2, http_stack=self.http_stack)
        try:
            await client.open()
            return sum([_tool_text(await client._call("small")) == "ok" for _ in range(calls)])
        finally:
            await client.close()

    async def close(self) -> None:
        """End the session (DELETE), and close the host's client."""
        await self.transport.close()
        if self.http is not None:
            await self.http.aclose()


# -- the official SDK ---------------------------------------------------------------------------


class SdkClient:
    """The ``mcp`` SDK's ``ClientSession`` over ``streamable_http_client``, as its docs use it.

    Notifications reach the session's ``message_handler`` (the SDK runs it in a task of its own
    per notification); a round of ``notifications`` ends once the result is back and all of
    them were handed to the handler.
    """

    def __init__(self, url: str, expected_notifications: int) -> None:
        self.url = url
        self.expected = expected_notifications
        self.progress = 0
        self.all_seen: asyncio.Event | None = None

    async def _on_message(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/progress":
            self.progress += 1
            if self.progress == self.expected and self.all_seen is not None:
                self.all_seen.set()

    async def run(
        self, serve: Callable[[Callable[[str], Awaitable[Check]]], Awaitable[None]]
    ) -> None:
        """Open the session, hand ``serve`` the round function, close the session."""
        from mcp.client.session import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        async with (
            streamable_http_client(self.url, max_sse_event_size=MAX_EVENT_BYTES) as (read, write),
            ClientSession(read, write, message_handler=self._on_message) as session,
        ):
            await session.initialize()

            async def one_round(workload: str) -> Check:
                if workload == "large":
                    result = await session.call_tool("large", {})
                    return _large_check(_sdk_text(result))
                if workload == "notifications":
                    self.progress = 0
                    self.all_seen = asyncio.Event()
                    result = await session.call_tool("notifications", {})
                    # On a timeout, the check reports the count that arrived.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.all_seen.wait(), CALL_TIMEOUT_S)
                    return {"text": _sdk_text(result), "notifications": self.progress}
                count = SESSION_CALLS if workload == "small300" else SMALL_CALLS
                tool = "small" if workload == "small300" else workload
                calls = 0
                for _ in range(count):
                    calls += _sdk_text(await session.call_tool(tool, {})) == "ok"
                return {"calls_ok": calls}

            await serve(one_round)


def _sdk_text(result: Any) -> str:
    if result.is_error:
        raise RuntimeError(f"tools/call failed: {result}")
    return str(result.content[0].text)


# -- the floors -------------------------------------------------------------------------------


def _small_call_body(request_id: int) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
    message["params"] = {"name": "small", "arguments": {}}
    return json.dumps(message, separators=(",", ":")).encode()


_FLOOR_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": PROTOCOL_VERSION,
}


class HttpxFloor:
    """The small calls as bare ``httpx.Client.stream`` POSTs, each body read whole: what any
    httpx-based client pays at least (no session, no decoding beyond finding the result).
    ``module``: ``httpx``, or ``httpx2`` for the floor of an httpx2 client."""

    def __init__(self, url: str, module: str = "httpx") -> None:
        http = importlib.import_module(module)
        self.url, self.client, self.next_id = url, http.Client(), 1

    def round(self, workload: str) -> Check:
        """``SESSION_CALLS`` small calls, or (``large``) the large result read whole and its
        one event's data parsed by ``orjson``: the floor of any httpx-based client there."""
        if workload == "large":
            return self._large()

        def call() -> str:
            self.next_id += 1
            body = _small_call_body(self.next_id)
            with self.client.stream("POST", self.url, headers=_FLOOR_HEADERS, content=body) as r:
                data = r.read()
            return "ok" if b'"ok"' in data else "?"

        return _small_calls(call, SESSION_CALLS)

    def _large(self) -> Check:
        import orjson

        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        message["params"] = {"name": "large", "arguments": {}}
        body = json.dumps(message).encode()
        with self.client.stream("POST", self.url, headers=_FLOOR_HEADERS, content=body) as r:
            data = r.read()
        start = data.index(b"data: ") + len(b"data: ")
        result = orjson.loads(data[start : data.index(b"\n", start)])["result"]
        return _large_check(_tool_text(result))

    def close(self) -> None:
        """Close the client."""
        self.client.close()


class HttpxSessionsFloor:
    """The ``concurrent`` workload as bare httpx: per session a fresh client (sharing one SSL
    context, as mcpstream's clients do), then the requests an MCP session makes on this server
    (``initialize``, ``notifications/initialized``, ``CALLS_PER_SESSION`` small calls, the
    DELETE), each body read whole. ``httpx.Client`` one session after the other, or
    ``httpx.AsyncClient`` with all sessions at once on one event loop (``asynchronous``): the
    floor under both mcpstream transports, and what concurrency alone buys on this server."""

    def __init__(self, url: str, *, asynchronous: bool) -> None:
        import ssl

        self.url, self.asynchronous = url, asynchronous
        self.ssl_context = ssl.create_default_context()

    def _requests(self) -> list[tuple[str, bytes | None]]:
        initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize"}
        initialize["params"] = INITIALIZE_PARAMS
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        calls = [("POST", _small_call_body(index + 1)) for index in range(CALLS_PER_SESSION)]
        return [
            ("POST", json.dumps(initialize).encode()),
            ("POST", json.dumps(initialized).encode()),
            *calls,
            ("DELETE", None),
        ]

    def _session_sync(self) -> int:
        import httpx

        ok = 0
        with httpx.Client(verify=self.ssl_context) as client:
            for method, body in self._requests():
                response = client.request(method, self.url, headers=_FLOOR_HEADERS, content=body)
                ok += b'"ok"' in response.content
        return ok

    async def _session_async(self) -> int:
        import httpx

        ok = 0
        async with httpx.AsyncClient(verify=self.ssl_context) as client:
            for method, body in self._requests():
                response = await client.request(
                    method, self.url, headers=_FLOOR_HEADERS, content=body
                )
                ok += b'"ok"' in response.content
        return ok

    async def _small300_async(self) -> Check:
        import httpx

        ok = 0
        async with httpx.AsyncClient(verify=self.ssl_context) as client:
            for request_id in range(SESSION_CALLS):
                body = _small_call_body(request_id + 1)
                async with client.stream(
                    "POST", self.url, headers=_FLOOR_HEADERS, content=body
                ) as response:
                    ok += b'"ok"' in await response.aread()
        return {"calls_ok": ok}

    async def round(self, workload: str) -> Check:
        """``SESSIONS`` sessions of ``CALLS_PER_SESSION`` small calls; or (``small300``, async
        only) ``SESSION_CALLS`` small calls on one ``httpx.AsyncClient``."""
        if workload == "small300":
            assert self.asynchronous
            return await self._small300_async()
        assert workload == "concurrent", workload
        if self.asynchronous:
            oks = await asyncio.gather(*(self._session_async() for _ in range(SESSIONS)))
        else:
            oks = [self._session_sync() for _ in range(SESSIONS)]
        return {"calls_ok": sum(oks)}


def _dechunk(data: bytearray) -> bytes:
    """The payload of a chunked body (``data`` from its first chunk's size line to its end)."""
    parts, offset = [], 0
    while True:
        line_end = data.index(b"\r\n", offset)
        size = int(data[offset:line_end].split(b";")[0], 16)
        if size == 0:
            return b"".join(parts)
        parts.append(bytes(data[line_end + 2 : line_end + 2 + size]))
        offset = line_end + 2 + size + 2


class SocketFloor:
    """The small calls over one bare keep-alive socket: the request bytes written, the answer
    read up to the end of its chunked body. The server's own time and the loopback's."""

    def __init__(self, url: str) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        self.sock = socket.create_connection((parts.hostname, parts.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        headers = "".join(f"{name}: {value}\r\n" for name, value in _FLOOR_HEADERS.items())
        self.head = f"POST {parts.path} HTTP/1.1\r\nhost: {parts.netloc}\r\n{headers}".encode()
        self.next_id = 1

    def _exchange(self, body: bytes) -> bytearray:
        """Send one POST of ``body``; its answer up to the end of the chunked body (the chunk
        framing left in: the floors only look for their result's text)."""
        self.sock.sendall(self.head + b"content-length: %d\r\n\r\n" % len(body) + body)
        data = bytearray()
        while not data.endswith(b"\r\n0\r\n\r\n"):
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            data += chunk
        return data

    def _call(self) -> str:
        self.next_id += 1
        return "ok" if b'"ok"' in self._exchange(_small_call_body(self.next_id)) else "?"

    def _large(self) -> Check:
        import orjson

        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        message["params"] = {"name": "large", "arguments": {}}
        data = self._exchange(json.dumps(message).encode())
        # The replay server writes the body in several chunks: their size lines are cut out.
        body = _dechunk(data[data.index(b"\r\n\r\n") + 4 :])
        start = body.index(b"data: ") + len(b"data: ")
        result = orjson.loads(body[start : body.index(b"\n", start)])["result"]
        return _large_check(_tool_text(result))

    def round(self, workload: str) -> Check:
        """``SESSION_CALLS`` small calls, or (``large``) the large result read off the socket
        and its one event's data parsed by ``orjson``: the floor of any Python client."""
        if workload == "large":
            return self._large()
        return _small_calls(self._call, SESSION_CALLS)

    def close(self) -> None:
        """Close the socket."""
        self.sock.close()


# -- the round protocol -------------------------------------------------------------------------


class Channel:
    """The protocol lines, written to the original stdout (then pointed at stderr)."""

    def __init__(self) -> None:
        self._out: IO[str] = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    def send(self, head: str, payload: dict[str, Any]) -> None:
        """Write ``head`` and ``payload`` (JSON) as one line."""
        self._out.write(f"{head} {json.dumps(payload)}\n")
        self._out.flush()


def _timed(check: Check, started: float) -> dict[str, Any]:
    return {"inner_s": time.perf_counter() - started, "check": check}


def serve_sync(args: argparse.Namespace, channel: Channel) -> None:
    """Drive ``SyncClient`` (or a floor) from stdin lines."""
    client: SyncClient | HttpxFloor | SocketFloor
    if args.client in ("httpx", "httpx2"):
        client = HttpxFloor(args.url, args.client)
    elif args.client == "socket":
        client = SocketFloor(args.url)
    else:
        client = SyncClient(
            args.url,
            reference=args.client == "reference",
            host_httpx2=args.client == "sync_httpx2",
            http_stack="httpx2" if args.client == "sync_own_httpx2" else None,
        )
    try:
        for _ in range(args.warmup):
            client.round(args.workload)
        channel.send("READY", {"backend": _backend()})
        for line in sys.stdin:
            if line.strip() != "run":
                break
            started = time.perf_counter()
            channel.send("DONE", _timed(client.round(args.workload), started))
    finally:
        client.close()


async def _serve_rounds(
    args: argparse.Namespace, channel: Channel, round_fn: Callable[[str], Awaitable[Check]]
) -> None:
    for _ in range(args.warmup):
        await round_fn(args.workload)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    channel.send("READY", {"backend": _backend()})
    while (await reader.readline()).strip() == b"run":
        started = time.perf_counter()
        channel.send("DONE", _timed(await round_fn(args.workload), started))


async def serve_async(args: argparse.Namespace, channel: Channel) -> None:
    """Drive ``AsyncClient`` from stdin lines."""
    client = AsyncClient(
        args.url,
        host_httpx2=args.client == "async_httpx2",
        http_stack="httpx2" if args.client == "async_own_httpx2" else None,
    )
    try:
        await client.open()
        await _serve_rounds(args, channel, client.round)
    finally:
        await client.close()


async def serve_httpx_sessions(args: argparse.Namespace, channel: Channel) -> None:
    """Drive ``HttpxSessionsFloor`` from stdin lines (the sync one runs inside the loop too:
    its round never awaits, so it is timed as if there were no loop)."""
    floor = HttpxSessionsFloor(args.url, asynchronous=args.client == "httpx_async")
    await _serve_rounds(args, channel, floor.round)


async def serve_sdk(args: argparse.Namespace, channel: Channel) -> None:
    """Drive ``SdkClient`` from stdin lines."""
    from replay_server import NOTIFICATIONS

    client = SdkClient(args.url, NOTIFICATIONS)
    await client.run(lambda round_fn: _serve_rounds(args, channel, round_fn))


def _backend() -> str:
    if "mcpstream.codec" not in sys.modules:
        return "sdk"
    from mcpstream.codec import BACKEND

    return BACKEND


def main() -> None:
    """Parse the command line and serve rounds until told to stop."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    clients = ("sync", "async", "sdk", "reference", "httpx", "httpx_async", "socket")
    clients += ("sync_httpx2", "async_httpx2", "httpx2", "sync_own_httpx2", "async_own_httpx2")
    parser.add_argument("--client", choices=clients, required=True)
    parser.add_argument("--workload", choices=sorted(WARMUP_ROUNDS), required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--warmup", type=int, default=None, help="warm-up rounds")
    args = parser.parse_args()
    if args.warmup is None:
        args.warmup = WARMUP_ROUNDS[args.workload]
    channel = Channel()
    if args.client == "httpx_async" or (args.client == "httpx" and args.workload == "concurrent"):
        asyncio.run(serve_httpx_sessions(args, channel))
    elif args.client in (
        "sync",
        "sync_httpx2",
        "sync_own_httpx2",
        "reference",
        "httpx",
        "httpx2",
        "socket",
    ):
        serve_sync(args, channel)
    elif args.client in ("async", "async_httpx2", "async_own_httpx2"):
        asyncio.run(serve_async(args, channel))
    else:
        asyncio.run(serve_sdk(args, channel))


if __name__ == "__main__":
    main()
