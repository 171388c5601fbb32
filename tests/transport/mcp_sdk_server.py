"""A real MCP server for the transport tests: the official SDK's ``MCPServer`` under uvicorn.

Run as ``python mcp_sdk_server.py sse|json|stateless|http-sse``: it binds 127.0.0.1 on a free
port, prints ``READY <port>`` on stdout and serves until killed. It runs in a subprocess so that
its sockets and threads do not mix with the client's in the leak tests.

Tools: ``echo``, ``big_text`` (a large result), ``count`` (progress notifications), ``ask_name``
(an elicitation request to the client), ``poke`` (a notification and a ping on the GET stream),
``resumable`` (closes its SSE stream before answering; the client must resume it), ``ask_two`` (two
elicitations, the second after the first answer: two rounds of ``input_required`` at 2026-07-28),
``sample`` (a sampling request), ``roots`` (a roots request), ``pause`` (progress after a silence,
then the answer after another), ``ask_then_pause`` (a server request, then the answer after a
silence; ``resolve_then_pause`` the same in either era), ``hold`` (a slow call that
records whether the server cancelled it, read back with ``outcome``), ``user_agent`` (the
``User-Agent`` the call's HTTP request carried), a resource
``mem://readme`` and a prompt ``greet``. Every mode speaks both eras (the SDK picks by the
request); ``stateless`` keeps no session for the handshake era either. ``http-sse`` serves the
deprecated HTTP+SSE transport of 2024-11-05 instead (the SDK's ``sse_app``: the stream at
``/sse``, messages POSTed to ``/messages/``), counting the requests it sees by method and path
(``GET /stats`` answers them as JSON, not counted itself), so that a test can tell what a client
probed. ``forgetful`` is the SSE mode whose session manager forgets a session on command
(``forgetful``: the session lost at any chosen step, as a restart at that moment loses it).
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
from collections import Counter
from typing import Annotated, Any

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ListRootsRequest, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

BIG_TEXT_UNIT = "mcpstream \u2713 \u00e9t\u00e9 \u2028 sep \U0001f600;"

OUTCOMES: dict[str, str] = {}
"""How each ``hold`` call ended on the server, by its key (what the cancellation tests ask)."""


class MemoryEventStore(EventStore):
    """Keeps every event so that a stream can be replayed after ``Last-Event-ID``."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._events: list[tuple[str, str, Any]] = []

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = f"ev-{next(self._ids)}"
        self._events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(
        self, last_event_id: str, send_callback: EventCallback
    ) -> str | None:
        positions = [
            i for i, (event_id, _, _) in enumerate(self._events) if event_id == last_event_id
        ]
        if not positions:
            return None
        stream_id = self._events[positions[0]][1]
        for event_id, event_stream, message in self._events[positions[0] + 1 :]:
            if event_stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id


class Name(BaseModel):
    """The form the ``ask_name`` tool elicits."""

    name: str


class City(BaseModel):
    """The second form ``ask_two`` elicits, once the name is known."""

    city: str


async def _first_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


async def _home_city(name: Annotated[Name, Resolve(_first_name)]) -> Elicit[City]:
    # Depends on the first answer: at 2026-07-28 a second round of input_required.
    return Elicit(f"Where do you live, {name.name}?", City)


def build_server() -> MCPServer:
    """The MCP server with the test tools."""
    server = MCPServer("mcpstream-test-server")

    @server.tool()
    async def echo(text: str) -> str:
        """Return ``text``."""
        return text

    @server.tool()
    async def big_text(size: int) -> str:
        """Return about ``size`` characters of text with multi-byte characters and U+2028."""
        repeats = size // len(BIG_TEXT_UNIT) + 1
        return (BIG_TEXT_UNIT * repeats)[:size]

    @server.tool()
    async def count(steps: int, ctx: Context) -> str:
        """Report ``steps`` progress notifications, then answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"counted {steps}"

    @server.tool()
    async def ask_name(ctx: Context) -> str:
        """Ask the client for a name (elicitation) and greet it."""
        result = await ctx.elicit("What is your name?", Name)
        if result.action == "accept":
            return f"hello {result.data.name}"
        return f"elicitation {result.action}"

    @server.tool()
    async def ask_two(
        name: Annotated[Name, Resolve(_first_name)], city: Annotated[City, Resolve(_home_city)]
    ) -> str:
        """Two elicitations, the second asked after the first answer (in either era)."""
        return f"{name.name} lives in {city.city}"

    @server.resource("mem://readme")
    def readme() -> str:
        """A resource to read."""
        return "read me"

    @server.prompt()
    def greet(who: str) -> str:
        """A prompt to get."""
        return f"Say hello to {who}."

    @server.tool()
    async def poke(ctx: Context) -> str:
        """Send a notification and a ping request on the GET stream (not tied to this call)."""
        await ctx.session.send_tool_list_changed()
        await ctx.session.send_ping()
        return "poked"

    @server.tool()
    async def sample(prompt: str, ctx: Context) -> str:
        """Ask the client's model (sampling) and return its text."""
        result = await ctx.session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
            max_tokens=16,
        )
        content = result.content
        return content.text if isinstance(content, TextContent) else "no text"

    @server.tool()
    async def roots(ctx: Context) -> str:
        """List the client's roots."""
        listed = await ctx.session.list_roots()
        return ",".join(str(root.uri) for root in listed.roots)

    @server.tool()
    async def sleep(seconds: float) -> str:
        """Answer after ``seconds``."""
        await anyio.sleep(seconds)
        return "slept"

    @server.tool()
    async def pause(seconds: float, ctx: Context, before: float = 0.0) -> str:
        """Report progress after ``before`` seconds, then answer after ``seconds`` more."""
        await anyio.sleep(before)
        await ctx.report_progress(0, 1, "started")
        await anyio.sleep(seconds)
        return "paused"

    @server.tool()
    async def ask_then_pause(kind: str, seconds: float, ctx: Context) -> str:
        """Make a server request (``kind``: ``elicitation``, ``sampling`` or ``roots``), then
        answer after ``seconds``."""
        if kind == "elicitation":
            await ctx.elicit("What is your name?", Name)
        elif kind == "sampling":
            text = TextContent(type="text", text="hi")
            await ctx.session.create_message(
                messages=[SamplingMessage(role="user", content=text)],
                max_tokens=16,
                related_request_id=ctx.request_id,
            )
        else:  # on the call's own stream, as the others
            related = ServerMessageMetadata(related_request_id=ctx.request_id)
            await ctx.session.send_request(ListRootsRequest(), ListRootsResult, metadata=related)
        await anyio.sleep(seconds)
        return "asked"

    @server.tool()
    async def resolve_then_pause(
        name: Annotated[Name, Resolve(_first_name)], seconds: float
    ) -> str:
        """An elicitation by the tool's dependencies (in either era: at 2026-07-28 a round of
        ``input_required``), then the answer after ``seconds``."""
        await anyio.sleep(seconds)
        return f"asked {name.name}"

    @server.tool()
    async def hold(key: str, seconds: float) -> str:
        """Answer after ``seconds``, recording under ``key`` how the call ended on the server
        (``held`` while it runs, then ``finished`` or ``cancelled``; see ``outcome``)."""
        OUTCOMES[key] = "held"
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            OUTCOMES[key] = "cancelled"
            raise
        OUTCOMES[key] = "finished"
        return "held"

    @server.tool()
    async def outcome(key: str) -> str:
        """How the ``hold`` call ``key`` ended on the server (``unknown``: none such ran)."""
        return OUTCOMES.get(key, "unknown")

    @server.tool()
    async def user_agent(ctx: Context) -> str:
        """The ``User-Agent`` of the HTTP request that carried this call (empty: none)."""
        return (ctx.headers or {}).get("user-agent", "")

    @server.tool()
    async def resumable(ctx: Context) -> str:
        """Close this call's SSE stream after the priming event, then answer."""
        await ctx.report_progress(1, 2, "before the break")
        await ctx.close_sse_stream()
        await anyio.sleep(0.3)
        await ctx.report_progress(2, 2, "after the break")
        return "resumed"

    return server


def counted(app: Any) -> Any:
    """``app`` counting the HTTP requests it sees (``GET /stats`` answers the counts)."""
    counts: Counter[str] = Counter()

    async def wrapper(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/stats":
            body = json.dumps(dict(counts)).encode()
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        if scope["type"] == "http":
            counts[f"{scope['method']} {scope['path']}"] += 1
        await app(scope, receive, send)

    return wrapper


def _key(method: str, body: bytes) -> str:
    """What a request is for ``forgetful``: its JSON-RPC method (a POST), else its HTTP method."""
    if method != "POST":
        return method
    try:
        message = json.loads(body)
    except ValueError:
        return "POST"
    return str(message.get("method", "answer")) if isinstance(message, dict) else "POST"


def forgetful(app: Any, manager: Any) -> Any:
    """``app`` whose session manager forgets the request's session on command, just before the
    request reaches it (the server then answers 404, as after a restart). ``POST /forget?at=K``
    arms one loss at the next request of kind ``K`` (a JSON-RPC method such as
    ``notifications/initialized`` or ``tools/call``, or ``GET``, ``DELETE``); arming twice
    loses two sessions; ``POST /disarm`` drops what is armed. ``GET /seen`` answers (and
    forgets) the requests seen, each as ``[kind, session id or null]``."""
    armed: Counter[str] = Counter()
    seen: list[tuple[str, str | None]] = []

    async def answer(send: Any, payload: Any) -> None:
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": json.dumps(payload).encode()})

    async def wrapper(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if scope["path"] == "/forget":
            armed[scope["query_string"].decode().removeprefix("at=").replace("%2F", "/")] += 1
            await answer(send, dict(armed))
            return
        if scope["path"] == "/disarm":
            armed.clear()
            await answer(send, {})
            return
        if scope["path"] == "/seen":
            await answer(send, seen[:])
            seen.clear()
            return
        chunks = []
        while True:  # the whole body, replayed to the app
            message = await receive()
            chunks.append(message)
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        body = b"".join(chunk.get("body", b"") for chunk in chunks)
        kind = _key(scope["method"], body)
        headers = dict(scope["headers"])
        session_id = headers.get(b"mcp-session-id")
        seen.append((kind, session_id.decode() if session_id else None))
        if session_id is not None and armed[kind] > 0:
            armed[kind] -= 1
            transport = manager._server_instances.get(session_id.decode())
            if transport is not None:
                await manager._discard_session(session_id.decode(), transport)
        replay = iter(chunks)

        async def replayed() -> Any:
            return next(replay, None) or await receive()

        await app(scope, replayed, send)

    return wrapper


def main() -> None:
    """Serve in the mode given on the command line until killed."""
    mode = sys.argv[1]
    server = build_server()
    if mode == "sse":
        app = server.streamable_http_app(event_store=MemoryEventStore(), retry_interval=100)
    elif mode == "json":
        app = server.streamable_http_app(json_response=True)
    elif mode == "stateless":
        app = server.streamable_http_app(stateless_http=True)
    elif mode == "forgetful":
        sdk_app = server.streamable_http_app(event_store=MemoryEventStore(), retry_interval=100)
        app = forgetful(sdk_app, server.session_manager)
    elif mode == "http-sse":
        app = counted(server.sse_app())
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    # asyncio's own event loop, as before uvloop was among the test tools (uvicorn takes it
    # when installed): the servers stay what the suites were written against
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1, loop="asyncio"
    )
    uvicorn_server = uvicorn.Server(config)
    print(f"READY {port}", flush=True)
    uvicorn_server.run(sockets=[sock])


if __name__ == "__main__":
    main()
