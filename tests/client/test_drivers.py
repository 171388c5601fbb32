"""The two drivers of the client core (``Client``, ``AsyncClient``) over an in-process HTTP
mock (``httpx.MockTransport``): what is theirs alone, their session lock and how they hand a
step's failure (cancellation included) back to the flow."""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from typing import Any

import httpx
import httpx2
import pytest
from mcpstream import AsyncClient, Client, Progress

URL = "http://mcp.test/mcp"
INITIALIZE_RESULT = {
    "protocolVersion": "2025-11-25",
    "serverInfo": {"name": "mock", "version": "1"},
    "capabilities": {"tools": {}},
}
TOOL_RESULT = {"content": [{"type": "text", "text": "ok"}]}


def answer(request: httpx.Request, methods: list[str]) -> httpx.Response:
    """A JSON-mode MCP server: the handshake, ``tools/call``; no GET stream."""
    if request.method != "POST":
        return httpx.Response(405)
    message = json.loads(request.content)
    methods.append(message["method"])
    if "id" not in message:
        return httpx.Response(202)
    result = INITIALIZE_RESULT if message["method"] == "initialize" else TOOL_RESULT
    return httpx.Response(
        200,
        json={"jsonrpc": "2.0", "id": message["id"], "result": result},
        headers={"Mcp-Session-Id": "s1"},
    )


def test_threads_that_connect_at_once_share_one_handshake() -> None:
    methods: list[str] = []
    entered = threading.Barrier(4)

    def handle(request: httpx.Request) -> httpx.Response:
        return answer(request, methods)

    with httpx.Client(transport=httpx.MockTransport(handle)) as http:
        client = Client(URL, http_client=http)

        def call() -> None:
            entered.wait()
            client.call_tool("t")

        threads = [threading.Thread(target=call) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        client.close()
    assert methods.count("initialize") == 1 and methods.count("tools/call") == 4


def test_tasks_that_connect_at_once_share_one_handshake() -> None:
    methods: list[str] = []

    async def handle(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0.01)  # let the other tasks reach the session lock
        return answer(request, methods)

    async def scenario() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handle)) as http:
            client = AsyncClient(URL, http_client=http)
            results = await asyncio.gather(*(client.call_tool("t") for _ in range(4)))
            await client.close()
        assert [result.text for result in results] == ["ok"] * 4

    asyncio.run(scenario())
    assert methods.count("initialize") == 1 and methods.count("tools/call") == 4


def test_a_cancelled_async_call_releases_its_progress_token() -> None:
    async def scenario() -> dict[str, Any]:
        started = asyncio.Event()
        methods: list[str] = []

        async def handle(request: httpx.Request) -> httpx.Response:
            if b'"tools/call"' in request.content:
                started.set()
                await asyncio.Event().wait()  # the tool never ends
            return answer(request, methods)

        async with (
            httpx.AsyncClient(transport=httpx.MockTransport(handle)) as http,
            AsyncClient(URL, http_client=http) as client,
        ):
            seen: list[Progress] = []
            call = asyncio.create_task(client.call_tool("slow", progress=seen.append))
            await started.wait()
            assert client._core.router._progress  # the call's token, while it runs
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            return dict(client._core.router._progress)

    assert asyncio.run(scenario()) == {}


def test_a_sync_call_interrupted_by_the_transport_releases_its_progress_token() -> None:
    methods: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        if b'"tools/call"' in request.content:
            raise KeyboardInterrupt
        return answer(request, methods)

    with (
        httpx.Client(transport=httpx.MockTransport(handle)) as http,
        Client(URL, http_client=http) as client,
    ):
        with pytest.raises(KeyboardInterrupt):
            client.call_tool("t", progress=lambda progress: None)
        assert client._core.router._progress == {}


def test_both_clients_offer_the_same_methods_with_the_same_parameters() -> None:
    """The drivers' method signatures are the one thing written twice: they must not drift."""

    def api(cls: type) -> dict[str, list[inspect.Parameter] | str]:
        members = {name: getattr(cls, name) for name in dir(cls) if not name.startswith("_")}
        return {
            name: list(inspect.signature(member).parameters.values())
            if inspect.isfunction(member)
            else type(member).__name__
            for name, member in members.items()
        }

    ours = api(Client)
    # aclose is the async client's own name for close (as httpx's AsyncClient has it).
    theirs = api(AsyncClient)
    assert theirs.pop("aclose") == theirs["close"]
    assert ours == theirs
    methods = [name for name, kind in ours.items() if isinstance(kind, list)]
    # with list_skills, get_skill, read_skill, complete, set_logging_level, subscribe_resource,
    # unsubscribe_resource, send_roots_list_changed, get_task, list_tasks
    assert len(methods) == 21
    for name in methods:
        assert inspect.iscoroutinefunction(getattr(AsyncClient, name)), name
        assert not inspect.iscoroutinefunction(getattr(Client, name)), name


class ParkedClose(httpx2.AsyncByteStream):
    """An SSE body of one event (the call's response) that parks in ``aclose`` until
    ``release`` is set, as a host's test double may (httpx2 2.17's ``aiter_raw`` awaits the
    close at the end of the body)."""

    def __init__(self, event: bytes) -> None:
        self.event = event
        self.release = asyncio.Event()
        self.closed = asyncio.Event()

    async def __aiter__(self) -> Any:
        yield self.event

    async def aclose(self) -> None:
        await self.release.wait()
        self.closed.set()


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:2])


def test_an_answer_is_handed_on_while_its_body_is_still_closing() -> None:
    async def scenario() -> None:
        parked: list[ParkedClose] = []

        async def handle(request: httpx2.Request) -> httpx2.Response:
            message = json.loads(request.content)
            if message.get("method") != "tools/call":
                reply = answer(request, [])  # type: ignore[arg-type]
                return httpx2.Response(
                    reply.status_code, headers=reply.headers, content=reply.content
                )
            response = {"jsonrpc": "2.0", "id": message["id"], "result": TOOL_RESULT}
            parked.append(ParkedClose(b"data: %s\n\n" % json.dumps(response).encode()))
            headers = {"Content-Type": "text/event-stream", "Mcp-Session-Id": "s1"}
            return httpx2.Response(200, headers=headers, stream=parked[-1])

        # (httpx2 2.17's aiter_raw awaits the body's close; httpx's leaves it to the response)
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(handle)) as http:
            client = AsyncClient(URL, http_client=http)
            # the answer comes back after the quiet window, not once the body has closed
            result = await asyncio.wait_for(client.call_tool("t"), 5)
            assert result.text == "ok"
            assert not parked[0].closed.is_set()
            parked[0].release.set()
            await client.close()
            if _release(httpx2.__version__) >= (2, 17):
                # 2.17's aiter_raw parks on the body's close: it is left running, and the
                # client's close awaits it (earlier releases end it at the quiet window).
                assert parked[0].closed.is_set()

    asyncio.run(scenario())
