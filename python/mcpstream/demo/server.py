"""The demo MCP server: tools, resources and prompts on the official SDK's ``MCPServer``,
served by uvicorn on a thread of this process, on a loopback port.

The SDK and uvicorn are imported only when a server is built, so that ``mcpstream`` itself does
not depend on them; without them, ``DemoServerUnavailableError`` says what to install.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import uvicorn
    from mcp.server.mcpserver import MCPServer

__all__ = ["DemoServer", "DemoServerUnavailableError", "build_demo_server"]

_START_TIMEOUT_S = 10.0
_GRACE_S = 0.5


class DemoServerUnavailableError(RuntimeError):
    """The ``mcp`` SDK or uvicorn is not installed (the ``demo`` extra)."""


def _require_sdk() -> None:
    try:
        import mcp.server.mcpserver  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise DemoServerUnavailableError(
            "the demo server needs the official MCP SDK and uvicorn "
            f"({(exc.name or 'a module').split('.')[0]} is missing): "
            "pip install 'mcpstream[demo]'"
        ) from None


def build_demo_server(*, tools_page_size: int | None = None) -> MCPServer:
    """The demo server: tools ``echo``, ``add``, ``big_text``, ``count`` (progress),
    ``announce`` (a log notification), ``ask_name`` (elicitation), ``summarize`` (sampling),
    ``list_roots`` (roots), ``sleep`` and ``fail``; a resource ``demo://readme`` and a template
    ``demo://greeting/{name}``; a prompt ``review``; and the completion, logging,
    subscription and roots demos of ``mcpstream.demo._features`` (tools ``update_notes``,
    ``log_levels``, ``roots_changes``, a template ``demo://note/{name}``, a prompt ``greet``).
    A task tool ``render`` (``mcpstream.demo._tasks``: a task at 2025-11-25 and through the
    2026-07-28 tasks extension) and a skill ``pdf-processing`` (``mcpstream.demo._skills``).
    ``tools_page_size`` makes ``tools/list`` answer in pages of that size."""
    _require_sdk()
    from mcp.server.mcpserver import MCPServer

    from ._skills import DemoSkills
    from ._tasks import DemoTasks, add_task_tool
    from ._tools import add_demo_features

    # MCPServer configures the root logger (a handler, level INFO) when the process has none;
    # the demo runs inside someone else's process, whose logging it must leave as it was.
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    tasks = DemoTasks()
    try:
        server = MCPServer(
            "mcpstream-demo",
            instructions="A demo server for mcpstream: try the count and big_text tools.",
            extensions=[tasks, DemoSkills()],
        )
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    add_demo_features(server)
    add_task_tool(server, tasks)
    if tools_page_size is not None:
        from ._tools import paginate_tools

        paginate_tools(server, tools_page_size)
    return server


class DemoServer:
    """The demo server on ``host``:``port`` (0: a free port), on a thread of this process.

    ``start`` returns once it accepts connections; ``stop`` ends it (open streams included).
    After ``stop`` it can be started again on the same port, as a restarted server: a new
    process knows nothing of the sessions of the old one. ``json_response`` makes it answer
    with JSON bodies instead of event streams; ``bearer_token`` makes it answer 401 to requests
    without ``Authorization: Bearer <bearer_token>``. ``http_sse`` serves the deprecated
    HTTP+SSE transport of 2024-11-05 instead (the SDK's ``sse_app``: the stream at ``/sse``,
    which ``url`` then names, messages POSTed to ``/messages/``).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        json_response: bool = False,
        tools_page_size: int | None = None,
        bearer_token: str | None = None,
        http_sse: bool = False,
    ) -> None:
        _require_sdk()
        self.http_sse = http_sse
        self.bearer_token = bearer_token
        self.host = host
        self.port = port
        self.json_response = json_response
        self.tools_page_size = tools_page_size
        self._uvicorn: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        """The MCP endpoint."""
        return f"http://{self.host}:{self.port}/{'sse' if self.http_sse else 'mcp'}"

    @property
    def running(self) -> bool:
        """True between ``start`` and ``stop``."""
        return self._thread is not None and self._thread.is_alive()

    def _bind(self) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit this. Without it, the last small write of each chunked
        # response waits for the client's delayed ACK: about 40 ms per request on loopback.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((self.host, self.port))
            sock.listen(128)
        except OSError:
            sock.close()
            raise
        self.port = int(sock.getsockname()[1])
        return sock

    def start(self) -> DemoServer:
        """Bind the port and serve on a thread; returns once the server is up."""
        import uvicorn

        if self.running:
            return self
        demo = build_demo_server(tools_page_size=self.tools_page_size)
        app: Any = (
            demo.sse_app(host=self.host)
            if self.http_sse
            else demo.streamable_http_app(json_response=self.json_response)
        )
        if self.bearer_token is not None:
            app = _BearerGuard(app, self.bearer_token)
        sock = self._bind()
        # Open event streams (a client's GET stream) never end by themselves: they are cut
        # after a short grace period, and uvicorn's complaint about that is not shown.
        # log_config=None: uvicorn leaves the process's logging configuration alone.
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="critical",
            lifespan="on",
            # uvicorn types it as int, but waits with asyncio.wait_for, which takes a float.
            timeout_graceful_shutdown=_GRACE_S,  # type: ignore[arg-type]
            access_log=False,
        )
        server = uvicorn.Server(config)
        self._uvicorn, self._error = server, None
        self._thread = threading.Thread(
            target=self._serve, args=(server, sock), name="mcpstream-demo-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the demo server did not start: {self._error!r}")
            time.sleep(0.01)
        return self

    def _serve(self, server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            asyncio.run(server.serve(sockets=[sock]))
        except BaseException as exc:
            self._error = exc
        finally:
            sock.close()

    def stop(self) -> None:
        """Stop serving and wait for the thread; the port is free again afterwards."""
        server, thread = self._uvicorn, self._thread
        if server is None or thread is None:
            return
        server.should_exit = True
        thread.join(5.0)
        if thread.is_alive():
            server.force_exit = True
            thread.join(5.0)
        self._uvicorn = self._thread = None

    def __enter__(self) -> DemoServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"DemoServer(url={self.url!r}, running={self.running})"


class _BearerGuard:
    """ASGI middleware: HTTP requests without the right bearer token get a 401 challenge."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != (
            self.expected
        ):
            body = b'{"error":"invalid_token"}'
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Bearer error="invalid_token"'),
            ]
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
