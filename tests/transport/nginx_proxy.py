"""A real nginx as a reverse proxy on loopback (``Nginx``: the user's own process, its
configuration in a temporary directory, on a port of its own) in front of a plain MCP answerer
that counts the tool calls it read (``McpAnswerer``), and the keep-alive race run through them
(``race``: clients calling at nginx's ``keepalive_timeout``, so that a request often goes out on
a connection nginx is closing). nginx is installed by ``scripts/install-nginx.sh``.

Run by hand for a longer race (``--calls`` calls in all, spread over ``--clients`` clients of
each kind), from ``tests``::

    PYTHONPATH=../python python -m transport.nginx_proxy --calls 2000 --clients 40
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport

from .h1_scripted import Exchange, ScriptedServer
from .helpers import call_tool, free_port, initialize, tool_text


def nginx_binary() -> str:
    """The nginx to run: ``MCPSTREAM_NGINX``, else the one on PATH or in /usr/sbin (Debian's);
    ``RuntimeError`` when there is none (``scripts/install-nginx.sh`` installs it)."""
    found = os.environ.get("MCPSTREAM_NGINX") or shutil.which("nginx")
    if not found and os.access("/usr/sbin/nginx", os.X_OK):
        found = "/usr/sbin/nginx"
    if not found:
        raise RuntimeError("nginx is missing: run scripts/install-nginx.sh")
    return found


class Nginx:
    """nginx on 127.0.0.1:``port`` running the ``server`` block's ``body`` (directives, each
    ending in ``;`` or a block), with ``keepalive_timeout`` toward its clients, until closed.
    Its own files (configuration, pid, logs, temporary files) are in a temporary directory;
    its access log says, for each request, how many its connection had carried
    (``connection_requests``)."""

    def __init__(self, body: str, keepalive_timeout: str = "75s") -> None:
        self.port = free_port()
        self._dir = Path(tempfile.mkdtemp(prefix="mcpstream-nginx-"))
        root = self._dir
        temps = "\n".join(
            f"    {kind}_temp_path {root / kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (root / "nginx.conf").write_text(
            f"""
worker_processes 1;
pid {root / "nginx.pid"};
error_log {root / "error.log"} warn;
events {{ worker_connections 1024; }}
http {{
    log_format counted "$connection_requests";
    access_log {root / "access.log"} counted;
{temps}
    keepalive_timeout {keepalive_timeout};
    server {{
        listen 127.0.0.1:{self.port};
        {body}
    }}
}}
"""
        )
        self._process = subprocess.Popen(
            [nginx_binary(), "-p", str(root), "-c", str(root / "nginx.conf"), "-g", "daemon off;"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self._wait_listening()

    @property
    def url(self) -> str:
        """nginx's origin: ``http://127.0.0.1:port``."""
        return f"http://127.0.0.1:{self.port}"

    def connection_requests(self) -> list[int]:
        """For each request nginx served so far, in order: the how-manieth of its connection
        it was (1: the connection's first)."""
        log = self._dir / "access.log"
        return [int(line) for line in log.read_text().split()] if log.exists() else []

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                assert self._process.stderr is not None
                raise RuntimeError(f"nginx did not start: {self._process.stderr.read()!r}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1.0).close()
                return
            except OSError:
                time.sleep(0.02)
        self.close()
        raise RuntimeError("nginx did not listen within 10 s")

    def close(self) -> None:
        """Stop nginx (a quick shutdown) and remove its files."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process.stderr is not None:
            self._process.stderr.close()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> Nginx:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def proxy_to(port: int) -> str:
    """The ``server`` body of nginx as a reverse proxy of ``http://127.0.0.1:port`` at ``/``
    (HTTP/1.1 with keep-alive to the backend, answers passed on as they come)."""
    return f"""
        location / {{
            proxy_pass http://127.0.0.1:{port};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
        }}"""


class McpAnswerer:
    """A plain MCP server (stateless, JSON answers) on a ``ScriptedServer``: ``initialize``
    answered with the version asked for, notifications with 202, ``tools/call`` with the text
    of its ``tag`` argument, counted in ``calls`` (tag: times read); a GET is refused (405: no
    stream to listen to)."""

    def __init__(self) -> None:
        self.calls: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self.server = ScriptedServer(self._reply)

    @property
    def port(self) -> int:
        """The answerer's port on 127.0.0.1."""
        port: int = self.server.port
        return port

    def _reply(self, exchange: Exchange) -> None:
        if exchange.request.method != b"POST":
            exchange.send(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            return
        message = json.loads(exchange.body)
        if "id" not in message:
            exchange.send(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
            return
        method, params = message["method"], message.get("params") or {}
        result: dict[str, Any] = {}
        if method == "initialize":
            result = {
                "protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "answerer", "version": "0"},
            }
        elif method == "tools/call":
            tag = str(params["arguments"]["tag"])
            with self._lock:
                self.calls[tag] += 1
            result = {"content": [{"type": "text", "text": tag}], "isError": False}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        exchange.send(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%b"
            % (len(body), body)
        )

    def close(self) -> None:
        self.server.close()


@dataclass
class RaceOutcome:
    """What a race came to: the calls made, the failed ones (their errors), and the calls the
    server read twice or more (tag: times)."""

    made: int = 0
    failures: list[str] = field(default_factory=list)
    twice: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def _transport_for(url: str, kind: str, workspace: Path) -> Any:
    server = ResolvedMcpServer(id="race", url=url, call_timeout_s=10.0)
    if kind == "sync":
        return McpHttpTransport(server=server, workspace_root=workspace)
    return AsyncMcpHttpTransport(server=server, workspace_root=workspace)


def race(
    url: str,
    answerer: McpAnswerer,
    *,
    kind: str,
    clients: int,
    calls: int,
    spacing: tuple[float, float],
    workspace: Path,
) -> RaceOutcome:
    """``clients`` MCP sessions of ``kind`` (``sync``: a thread each; ``async``: tasks of one
    event loop) to ``url``, each making ``calls`` tool calls, spaced by a pause drawn from
    ``spacing`` (seconds) after each answer; a failed call is counted and the session goes
    on."""
    outcome = RaceOutcome()
    lock = threading.Lock()
    tags = [[f"{kind}-{c}-{n}" for n in range(calls)] for c in range(clients)]

    def record(tag: str, text: str | BaseException) -> None:
        with lock:
            outcome.made += 1
            if isinstance(text, BaseException):
                outcome.failures.append(f"{tag}: {type(text).__name__}: {text}")
            elif text != tag:
                outcome.failures.append(f"{tag}: answered {text!r}")

    def pause(chance: random.Random) -> float:
        return chance.uniform(*spacing)

    started = time.monotonic()
    if kind == "sync":

        def run(own: list[str], seed: int) -> None:
            chance = random.Random(seed)
            transport = _transport_for(url, kind, workspace)
            try:
                initialize(transport)
                for tag in own:
                    time.sleep(pause(chance))
                    try:
                        record(tag, tool_text(call_tool(transport, "echo", {"tag": tag})))
                    except Exception as exc:  # (counted: the session goes on)
                        record(tag, exc)
            finally:
                transport.close()

        threads = [threading.Thread(target=run, args=(own, seed)) for seed, own in enumerate(tags)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    else:

        async def session(own: list[str], seed: int) -> None:
            chance = random.Random(seed)
            transport = _transport_for(url, kind, workspace)
            try:
                await _ainitialize(transport)
                for tag in own:
                    await asyncio.sleep(pause(chance))
                    try:
                        response = await transport.request(
                            method="tools/call",
                            params={"name": "echo", "arguments": {"tag": tag}},
                            timeout_s=10.0,
                        )
                        if response.error is not None:
                            raise RuntimeError(str(response.error))
                        record(tag, str(response.result["content"][0]["text"]))
                    except Exception as exc:  # (counted: the session goes on)
                        record(tag, exc)
            finally:
                await transport.close()

        async def main() -> None:
            await asyncio.gather(*(session(own, seed) for seed, own in enumerate(tags)))

        asyncio.run(main())
    outcome.seconds = time.monotonic() - started
    mine = {tag for own in tags for tag in own}
    outcome.twice = {tag: n for tag, n in answerer.calls.items() if tag in mine and n > 1}
    return outcome


async def _ainitialize(transport: AsyncMcpHttpTransport) -> None:
    """The MCP handshake of ``helpers.initialize``, on an async transport."""
    from .helpers import CLIENT_CAPABILITIES, PROTOCOL_VERSION

    response = await transport.request(
        method="initialize",
        params={
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": CLIENT_CAPABILITIES,
            "clientInfo": {"name": "mcpstream-race", "version": "0"},
        },
        timeout_s=10.0,
    )
    assert response.error is None, response.error
    transport.set_negotiated_protocol_version(response.result["protocolVersion"])
    await transport.send_notification(method="notifications/initialized", params=None)


def count_resends() -> collections.Counter[str]:
    """Count, by driver (``sync``, ``async``), the requests the transports send again (the
    races they absorbed), for the race by hand: ``may_resend`` wrapped where each driver calls
    it (what it decides is unchanged)."""
    from mcpstream._http.h1 import aio, sync

    counts: collections.Counter[str] = collections.Counter()
    for name, module in (("sync", sync), ("async", aio)):
        if not hasattr(module, "may_resend"):  # (a version from before the resend)
            continue

        def counted(*args: Any, _decide: Any = module.may_resend, _name: str = name) -> bool:
            decided = bool(_decide(*args))
            counts[_name] += decided
            return decided

        module.may_resend = counted  # type: ignore[attr-defined]
    return counts


def main() -> None:
    """The race by hand: see the module."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000, help="calls in all, of each kind")
    parser.add_argument("--clients", type=int, default=40, help="clients of each kind")
    parser.add_argument("--timeout", default="1s", help="nginx's keepalive_timeout")
    parser.add_argument("--spacing", default="0.95,1.05", help="pause after a call: min,max s")
    parser.add_argument("--kinds", default="sync,async")
    args = parser.parse_args()
    low, high = (float(part) for part in args.spacing.split(","))
    resent = count_resends()
    answerer = McpAnswerer()
    try:
        with Nginx(proxy_to(answerer.port), keepalive_timeout=args.timeout) as nginx:
            for kind in args.kinds.split(","):
                with tempfile.TemporaryDirectory() as workspace:
                    outcome = race(
                        f"{nginx.url}/mcp",
                        answerer,
                        kind=kind,
                        clients=args.clients,
                        calls=max(1, args.calls // args.clients),
                        spacing=(low, high),
                        workspace=Path(workspace),
                    )
                print(
                    f"{kind}: {len(outcome.failures)} failed of {outcome.made} calls, "
                    f"{len(outcome.twice)} read twice, {resent[kind]} sent again, "
                    f"in {outcome.seconds:.1f} s"
                )
                for failure in collections.Counter(
                    line.partition(": ")[2] for line in outcome.failures
                ).most_common(5):
                    print("   ", failure)
    finally:
        answerer.close()


if __name__ == "__main__":
    main()
