"""Helpers shared by the transport tests: the MCP handshake, tool calls, a scripted handler,
ports to test connection failures with, what a process holds (sockets, fds, GET streams)."""

from __future__ import annotations

import contextlib
import gc
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mcpstream import close_pools
from mcpstream._http.core.listen import ListenStream
from mcpstream.server_requests import McpServerRequestContext

T = TypeVar("T")

PROTOCOL_VERSION = "2025-11-25"
CLIENT_CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}}


def initialize(transport: Any, *, timeout_s: float = 10.0) -> dict[str, Any]:
    """Run the MCP handshake: initialize, record the protocol version, notify initialized."""
    response = transport.request(
        method="initialize",
        params={
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": CLIENT_CAPABILITIES,
            "clientInfo": {"name": "mcpstream-tests", "version": "0"},
        },
        timeout_s=timeout_s,
    )
    assert response.error is None, response.error
    transport.set_negotiated_protocol_version(response.result["protocolVersion"])
    transport.send_notification(method="notifications/initialized", params=None)
    result: dict[str, Any] = response.result
    return result


def call_tool(
    transport: Any,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    timeout_s: float = 10.0,
    progress_token: str | None = None,
) -> dict[str, Any]:
    """Call a tool and return its result (asserting the call succeeded)."""
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if progress_token is not None:
        params["_meta"] = {"progressToken": progress_token}
    response = transport.request(method="tools/call", params=params, timeout_s=timeout_s)
    assert response.error is None, response.error
    result: dict[str, Any] = response.result
    return result


def tool_text(result: dict[str, Any]) -> str:
    """The text of a tool result's first content block."""
    return str(result["content"][0]["text"])


class ScriptedHandler:
    """A server-request handler that answers from a script and records what it was asked.

    ``answers`` maps a method to a value (the result), an exception (raised), or a callable
    taking the params.
    """

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, Any, Any]] = []
        self.contexts: list[McpServerRequestContext] = []
        self._lock = threading.Lock()

    def handle_request(
        self, *, context: McpServerRequestContext, method: str, request_id: Any, params: Any
    ) -> Any:
        with self._lock:
            self.calls.append((method, request_id, params))
            self.contexts.append(context)
        answer = self.answers[method]
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return answer(params)
        return answer


def open_sockets_to(port: int) -> int:
    """How many sockets of this process are connected to 127.0.0.1:``port`` (Linux)."""
    inodes = set()
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = fd.readlink()
        except OSError:
            continue
        text = str(target)
        if text.startswith("socket:["):
            inodes.add(text[8:-1])
    wanted = f"0100007F:{port:04X}"
    count = 0
    for line in Path("/proc/self/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote, state, inode = fields[2], fields[3], fields[9]
        # State 0A is LISTEN; anything else with that remote end is a client connection.
        if remote == wanted and inode in inodes and state != "0A":
            count += 1
    return count


def free_port() -> int:
    """A port nothing listens on (for connection-refused tests)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class UnansweredPort:
    """A loopback port where connecting never completes: a listening socket that accepts
    nobody, its one-slot backlog already filled, so the kernel drops further SYNs (Linux).

    Use as a context manager; ``url`` is an MCP endpoint on that port.
    """

    def __init__(self) -> None:
        self._listener = socket.socket()
        self._fillers: list[socket.socket] = []

    def __enter__(self) -> UnansweredPort:
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(0)
        for _ in range(4):
            filler = socket.socket()
            filler.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                filler.connect(self._listener.getsockname())
            self._fillers.append(filler)
        return self

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>/mcp``."""
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/mcp"

    def __exit__(self, *exc: object) -> None:
        for filler in self._fillers:
            filler.close()
        self._listener.close()


def open_fds() -> int:
    """How many file descriptors this process has open (Linux)."""
    return len(list(Path("/proc/self/fd").iterdir()))


def live_streams() -> int:
    """How many GET streams (``ListenStream``) are alive, after a full collection: a retired
    one kept anywhere (a task, a list) counts."""
    gc.collect()
    return sum(isinstance(item, ListenStream) for item in gc.get_objects())


def settled(measure: Callable[[], T], wanted: Callable[[T], bool], wait_s: float = 5.0) -> T:
    """``measure()`` once ``wanted`` holds of it, or as it is after ``wait_s`` (threads and
    sockets end a moment after the call that ended them returned)."""
    deadline = time.monotonic() + wait_s
    value = measure()
    while not wanted(value) and time.monotonic() < deadline:
        time.sleep(0.02)
        value = measure()
    return value


def close_shared_pools(runner: Any = None) -> None:
    """Close the idle connections of the process's shared pools (``close_pools``), those of
    ``runner``'s event loop (an ``EventLoopThread``) too, on its thread, before this returns.
    The sessions of a transport made without a client leave their connections idle there
    (the process's, not a session's): a test counting what a closed session left behind
    closes them first, as a host wanting nothing left open does."""
    close_pools()
    if runner is not None:

        async def in_loop() -> None:
            close_pools()

        runner.run(in_loop())
