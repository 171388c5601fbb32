"""Failures under the SDK's session, compared with the SDK's own transport: each failure runs
over both transports (``mcp.Client``, and ``ClientSession`` for those of the handshake), and
what the host sees must be the same: the same exception classes with the same wrapping (an
``ExceptionGroup`` of the HTTP client's exception where the SDK's transport raises it), or
the same JSON-RPC error code where it answers with one. And the host client's timeouts
govern the waits, as under the SDK's transport."""

from __future__ import annotations

import json
import socket
import threading
import time
from contextlib import AsyncExitStack
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client, ClientSession, MCPDeprecationWarning, MCPError
from mcp.client.context import ClientRequestContext
from mcp.shared._httpx_utils import create_mcp_http_client
from mcpstream.sdk import streamablehttp_client

from tests.hostile.server import Connection, sse_event
from tests.transport.conftest import _start_mcp_server

from .conftest import run
from .test_hostile import _server
from .transports import TRANSPORTS, shape

HOST_TIMEOUT_S = 2.0


def _closed_port_url() -> str:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now: the connection is refused
    return f"http://127.0.0.1:{port}/mcp"


async def _client_outcome(factory: Any, url: str, **options: Any) -> str:
    """What ``mcp.Client`` shows of a handshake and a ``tools/call``: the shape of the
    exception ``async with`` raises, of the call's ``MCPError``, or ``ok``."""
    try:
        async with Client(factory(url, **options), mode="legacy") as client:
            try:
                await client.call_tool("bad", {})
            except MCPError as exc:
                return "call " + shape(exc)
            return "ok"
    except Exception as exc:
        return "session " + shape(exc)


async def _session_outcome(factory: Any, url: str, **options: Any) -> str:
    """The same under ``ClientSession`` over the transport's streams."""
    try:
        async with factory(url, **options) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            try:
                await s.call_tool("bad", {})
            except MCPError as exc:
                return "call " + shape(exc)
            return "ok"
    except Exception as exc:
        return "session " + shape(exc)


def _both(url: str, session: bool = True, **options: Any) -> dict[str, list[str]]:
    async def main() -> dict[str, list[str]]:
        seen: dict[str, list[str]] = {}
        for name, factory in TRANSPORTS.items():
            seen[name] = [await _client_outcome(factory, url, **options)]
            if session:
                seen[name].append(await _session_outcome(factory, url, **options))
        return seen

    return run(main(), 60)


HANDSHAKE_FAILURES = ["refused", "dns", "tls"]


@pytest.mark.parametrize("failure", HANDSHAKE_FAILURES)
def test_a_handshake_failure_is_the_sdks(mcp_server_urls: dict[str, str], failure: str) -> None:
    if failure == "refused":
        url = _closed_port_url()
    elif failure == "dns":
        url = "http://no-such-host.invalid/mcp"
    else:  # TLS to a port that speaks plain HTTP: the handshake fails
        url = mcp_server_urls["sse"].replace("http://", "https://")
    seen = _both(url)
    assert seen["mcpstream"] == seen["sdk"]
    assert seen["sdk"][0] == "session builtins.ExceptionGroup[httpx2.ConnectError]"


def _stream_without_response(connection: Connection, request_id: Any) -> None:
    connection.stream_head()
    connection.send(
        sse_event(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "x"},
            }
        )
    )
    connection.end()


CALL_FAILURES: dict[str, Any] = {
    "500": lambda c, i: c.respond(b"boom", status="500 Oops", content_type="text/plain"),
    "400": lambda c, i: c.respond(b"no", status="400 Bad Request", content_type="text/plain"),
    "404 without a session": lambda c, i: c.respond(
        b"gone", status="404 Not Found", content_type="text/plain"
    ),
    "stream ended without a response": _stream_without_response,
    "closed before the answer": lambda c, i: c.end(),
}


@pytest.mark.parametrize("failure", sorted(CALL_FAILURES))
def test_a_call_failure_is_the_sdks(hostile: Any, failure: str) -> None:
    server = hostile({"/mcp": _server(CALL_FAILURES[failure])})
    seen = _both(server.url + "/mcp")
    assert seen["mcpstream"] == seen["sdk"]
    assert seen["sdk"] == [EXPECTED[failure]] * 2


EXPECTED = {
    "500": f"call mcp.shared.exceptions.MCPError({types.INTERNAL_ERROR})",
    "400": f"call mcp.shared.exceptions.MCPError({types.INTERNAL_ERROR})",
    "404 without a session": f"call mcp.shared.exceptions.MCPError({types.METHOD_NOT_FOUND})",
    "stream ended without a response": (
        f"call mcp.shared.exceptions.MCPError({types.CONNECTION_CLOSED})"
    ),
    "closed before the answer": "session builtins.ExceptionGroup[httpx2.RemoteProtocolError]",
}


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_the_host_clients_timeout_governs_a_silent_server(silent_url: str, transport: str) -> None:
    async def main() -> tuple[str, float]:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(HOST_TIMEOUT_S)) as client:
            started = time.monotonic()
            outcome = await _client_outcome(TRANSPORTS[transport], silent_url, http_client=client)
            return outcome, time.monotonic() - started

    outcome, elapsed = run(main(), 60)
    assert outcome == "session builtins.ExceptionGroup[httpx2.ReadTimeout]"
    # Near the host's 2 s (mcpstream's own deadline is minutes): margins for a loaded machine.
    assert HOST_TIMEOUT_S * 0.9 <= elapsed < HOST_TIMEOUT_S + 6.0


async def _stall_outcome(factory: Any, url: str, mode: str, session: bool) -> list[str]:
    """A ``pause`` call that reports progress (the stream's first event) and then stays silent
    past the host client's read timeout, under ``mcp.Client`` (``mode``) or ``ClientSession``:
    the call's outcome, whether its progress arrived, and a call made afterwards."""
    seen: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(f"progress {message}")

    timeout = httpx2.Timeout(STALL_READ_TIMEOUT_S)
    async with httpx2.AsyncClient(timeout=timeout) as client, AsyncExitStack() as stack:
        if session:
            read, write = await stack.enter_async_context(factory(url, http_client=client))
            peer: Any = await stack.enter_async_context(ClientSession(read, write))
            await peer.initialize()
        else:
            peer = await stack.enter_async_context(
                Client(factory(url, http_client=client), mode=mode)
            )
        try:
            await peer.call_tool("pause", {"seconds": 60.0}, progress_callback=on_progress)
            seen.append("ok")
        except MCPError as exc:
            seen.append("call " + shape(exc))
        after = await peer.call_tool("echo", {"text": "after"})
        text = after.content[0]
        assert isinstance(text, types.TextContent)
        seen.append(text.text)
    return seen


STALL_READ_TIMEOUT_S = 1.0


@pytest.mark.parametrize("server", ["stateless", "sse"])
def test_a_stream_silent_past_the_host_read_timeout_is_the_sdks(
    mcp_server_urls: dict[str, str], mode: str, server: str
) -> None:
    # The SDK's transport handles a read timeout on a request's event stream as a stream that
    # ended: resumed from its last event id (the SSE server's event store, below 2026-07-28)
    # until its attempts run out, else at once, the request fails with CONNECTION_CLOSED and
    # the session goes on. mcpstream resumes by its own policy (more attempts), to the same end.
    url = mcp_server_urls[server]

    async def main() -> dict[str, list[list[str]]]:
        seen: dict[str, list[list[str]]] = {}
        for name, factory in TRANSPORTS.items():
            seen[name] = [await _stall_outcome(factory, url, mode, session=False)]
            if mode == "legacy":  # ClientSession speaks the handshake era
                seen[name].append(await _stall_outcome(factory, url, mode, session=True))
        return seen

    seen = run(main(), 120)
    assert seen["mcpstream"] == seen["sdk"]
    closed = f"call mcp.shared.exceptions.MCPError({types.CONNECTION_CLOSED})"
    assert seen["sdk"][0] == ["progress started", closed, "after"]


async def _after_notification(
    factory: Any,
    url: str,
    mode: str,
    *,
    session: bool,
    before: Any = None,
    http_client: httpx2.AsyncClient | None = None,
) -> list[str]:
    """What a host sees of a notification whose POST fails, under ``mcp.Client`` (``mode``)
    or ``ClientSession``: ``before()`` runs once the session is up (the server goes away, its
    session is deleted...), then ``notifications/roots/list_changed`` is sent and a call made
    after it. The outcome of each, and of leaving the session."""
    seen: list[str] = []
    options = {} if http_client is None else {"http_client": http_client}
    try:
        async with AsyncExitStack() as stack:
            if session:
                read, write = await stack.enter_async_context(factory(url, **options))
                peer: Any = await stack.enter_async_context(ClientSession(read, write))
                await peer.initialize()
            else:
                peer = await stack.enter_async_context(Client(factory(url, **options), mode=mode))
            if before is not None:
                await before()
            with pytest.warns(MCPDeprecationWarning):  # roots are deprecated at 2026-07-28
                await peer.send_roots_list_changed()
            seen.append("notified")
            try:
                with anyio.fail_after(20):
                    await peer.call_tool("echo", {"text": "after"})
                seen.append("call ok")
            except MCPError as exc:
                seen.append(f"call {shape(exc)} {exc.error.message}")
    except Exception as exc:
        seen.append("session " + shape(exc))
    return seen


NOTIFICATION_FAILURES: dict[str, Any] = {
    "500": lambda c: c.respond(b"boom", status="500 Oops", content_type="text/plain"),
    "closed without an answer": lambda c: c.end(),
}


@pytest.mark.parametrize("failure", sorted(NOTIFICATION_FAILURES))
def test_a_failed_notification_post_is_the_sdks(hostile: Any, failure: str) -> None:
    # The SDK's transport drops an HTTP error to a notification (the session goes on), and
    # ends itself on what its client raises (the session's requests then fail with
    # "Connection closed"), as mcpstream does.
    base = _server(lambda connection, request_id: None)

    def route(connection: Connection) -> None:
        if connection.method == "POST" and connection.jsonrpc.get("method") == ROOTS_CHANGED:
            NOTIFICATION_FAILURES[failure](connection)
        else:
            base(connection)

    url = hostile({"/mcp": route}).url + "/mcp"

    async def main() -> dict[str, list[list[str]]]:
        seen: dict[str, list[list[str]]] = {}
        for name, factory in TRANSPORTS.items():
            seen[name] = [
                await _after_notification(factory, url, "legacy", session=session)
                for session in (False, True)
            ]
        return seen

    seen = run(main(), 60)
    assert seen["mcpstream"] == seen["sdk"]
    assert seen["sdk"] == [NOTIFICATION_EXPECTED[failure]] * 2


ROOTS_CHANGED = "notifications/roots/list_changed"
NOTIFICATION_EXPECTED = {
    "500": ["notified", "call ok"],
    "closed without an answer": [
        "notified",
        f"call mcp.shared.exceptions.MCPError({types.CONNECTION_CLOSED}) Connection closed",
    ],
}


def test_a_notification_to_a_server_gone_ends_the_transport_as_the_sdks(mode: str) -> None:
    # The SDK's server stops after the handshake: the notification's POST cannot connect,
    # which ends either transport; the call after it fails with "Connection closed".
    async def outcome(factory: Any, session: bool) -> list[str]:
        process, url = _start_mcp_server("sse")
        try:

            async def stop() -> None:
                process.terminate()
                await anyio.to_thread.run_sync(process.wait)

            return await _after_notification(factory, url, mode, session=session, before=stop)
        finally:
            process.kill()
            process.wait()

    async def main() -> dict[str, list[list[str]]]:
        seen: dict[str, list[list[str]]] = {}
        for name, factory in TRANSPORTS.items():
            seen[name] = [await outcome(factory, session=False)]
            if mode == "legacy":
                seen[name].append(await outcome(factory, session=True))
        return seen

    seen = run(main(), 120)
    assert seen["mcpstream"] == seen["sdk"]
    closed = f"call mcp.shared.exceptions.MCPError({types.CONNECTION_CLOSED}) Connection closed"
    assert seen["sdk"][0] == ["notified", closed]


def test_a_notification_refused_by_the_servers_session_is_dropped_as_by_the_sdk(
    mcp_server_urls: dict[str, str],
) -> None:
    # The SDK's server answers 404 to the notification of a session deleted meanwhile: the
    # SDK's transport drops it and the session goes on (its next call gets the server's
    # JSON-RPC error for the session, read from the 404's body), as mcpstream does.
    url = mcp_server_urls["sse"]

    async def outcome(factory: Any, session: bool) -> list[str]:
        session_ids: list[str] = []

        async def on_response(response: httpx2.Response) -> None:
            if "mcp-session-id" in response.headers:
                session_ids.append(response.headers["mcp-session-id"])

        async with (
            httpx2.AsyncClient(event_hooks={"response": [on_response]}) as client,
            httpx2.AsyncClient() as other,
        ):

            async def delete() -> None:
                deleted = await other.delete(url, headers={"mcp-session-id": session_ids[0]})
                assert deleted.status_code == 200

            return await _after_notification(
                factory, url, "legacy", session=session, before=delete, http_client=client
            )

    async def main() -> dict[str, list[list[str]]]:
        seen: dict[str, list[list[str]]] = {}
        for name, factory in TRANSPORTS.items():
            seen[name] = [await outcome(factory, session) for session in (False, True)]
        return seen

    seen = run(main(), 60)
    assert seen["mcpstream"] == seen["sdk"]
    # The server's words for the lost session differ between releases ("Session not found",
    # "Not Found: Session has been terminated"); its code does not.
    refused = f"call mcp.shared.exceptions.MCPError({types.INVALID_REQUEST}) "
    assert len(seen["sdk"]) == 2
    for notified, call in seen["sdk"]:
        assert notified == "notified"
        assert call.startswith(refused) and "session" in call.lower(), call


# -- the session's answer to a server request: POSTed as the SDK's writer POSTs it ------------


async def _after_answer(
    factory: Any,
    url: str,
    answered: Any,
    http_client: httpx2.AsyncClient | None = None,
    *,
    error: bool = False,
) -> list[str]:
    """What ``mcp.Client`` (the handshake era: a server request on the call's stream) shows
    when the session answers the elicitation of ``ask_name`` (``answered()`` runs just before
    the answer is written; ``error``: the answer is a JSON-RPC error): the tool call's outcome
    (``waits`` when it is still waiting after a few seconds), a call after it, and leaving
    the session."""
    seen: list[str] = []
    options = {} if http_client is None else {"http_client": http_client}

    async def elicited(
        context: ClientRequestContext, params: Any
    ) -> types.ElicitResult | types.ErrorData:
        await answered()
        if error:
            return types.ErrorData(code=types.INVALID_REQUEST, message="no names here")
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    try:
        async with Client(
            factory(url, **options), mode="legacy", elicitation_callback=elicited
        ) as client:
            for tool, arguments in (("ask_name", {}), ("echo", {"text": "after"})):
                try:
                    with anyio.fail_after(4):
                        await client.call_tool(tool, arguments)
                    seen.append("call ok")
                except TimeoutError:
                    seen.append("call waits")
                except MCPError as exc:
                    seen.append(f"call {shape(exc)}")
        seen.append("left")
    except Exception as exc:
        seen.append("session " + shape(exc))
    return seen


def test_an_answer_to_a_server_gone_ends_the_transport_as_the_sdks() -> None:
    # The server goes away while the session answers its elicitation: the answer's POST
    # cannot connect. The SDK's writer ends on it (its streams close: the session's calls
    # fail with "Connection closed"), and so does mcpstream's transport, instead of failing
    # the tool call alone and letting the next call meet the refused connection.
    async def outcome(factory: Any) -> list[str]:
        process, url = _start_mcp_server("sse")
        try:

            async def stop() -> None:
                process.kill()
                await anyio.to_thread.run_sync(process.wait)

            return await _after_answer(factory, url, stop)
        finally:
            process.kill()
            process.wait()

    async def main() -> dict[str, list[str]]:
        return {name: await outcome(factory) for name, factory in TRANSPORTS.items()}

    seen = run(main(), 120)
    assert seen["mcpstream"] == seen["sdk"]
    closed = f"call mcp.shared.exceptions.MCPError({types.CONNECTION_CLOSED})"
    assert seen["sdk"] == [closed, closed, "left"]


def test_an_http_error_to_an_answer_is_dropped_as_by_the_sdk(
    mcp_server_urls: dict[str, str],
) -> None:
    # The SDK's server refuses the answer (400: the host's client stamps a protocol version
    # it does not speak on the answer's POST). The SDK's 2.x writer drops the error: the
    # tool call goes on waiting for the answer the server never got, and the session goes
    # on, as over mcpstream (which failed the tool call at once before).
    url = mcp_server_urls["sse"]
    statuses: list[int] = []

    async def unsupported_version(request: httpx2.Request) -> None:
        if request.method == "POST" and "method" not in json.loads(request.content):
            request.headers["mcp-protocol-version"] = "1999-01-01"

    async def answered_with(response: httpx2.Response) -> None:
        if response.request.headers.get("mcp-protocol-version") == "1999-01-01":
            statuses.append(response.status_code)

    async def nothing() -> None:
        pass

    async def main() -> dict[str, list[str]]:
        seen: dict[str, list[str]] = {}
        hooks: dict[str, list[Any]] = {
            "request": [unsupported_version],
            "response": [answered_with],
        }
        for name, factory in TRANSPORTS.items():
            async with httpx2.AsyncClient(event_hooks=hooks) as client:
                seen[name] = await _after_answer(factory, url, nothing, http_client=client)
        return seen

    seen = run(main(), 60)
    assert statuses == [400, 400]  # the server's answer to either transport's POST
    assert seen["mcpstream"] == seen["sdk"]
    assert seen["sdk"] == ["call waits", "call ok", "left"]


def _eliciting_call(connection: Connection, request_id: Any) -> None:
    # The tool asks for a name on its stream, then stays silent: its response would follow
    # the answer, which never arrives whole.
    elicit = {"message": "What is your name?", "requestedSchema": {"type": "object"}}
    request = {"jsonrpc": "2.0", "id": 41, "method": "elicitation/create", "params": elicit}
    if connection.stream_head() and connection.send(sse_event(request)):
        connection.stopping.wait(8)
    connection.end()


CALL_CLOSED = f"call mcp.shared.exceptions.MCPError({types.CONNECTION_CLOSED})"
ANSWER_FAILURES: dict[str, Any] = {
    "500": lambda c: c.respond(b"boom", status="500 Oops", content_type="text/plain"),
    "closed without an answer": lambda c: c.end(),
    "past the client's read timeout": lambda c: c.stopping.wait(8),
}
ANSWER_EXPECTED = {
    # 2.x drops an HTTP error to an answer: the call waits on, the session goes on.
    "500": ["call waits", "call ok", "left"],
    # What the client raises ends the writer, and with it the transport.
    "closed without an answer": [CALL_CLOSED, CALL_CLOSED, "left"],
    "past the client's read timeout": [CALL_CLOSED, CALL_CLOSED, "left"],
}


@pytest.mark.parametrize("answer", ["result", "error"])
@pytest.mark.parametrize("failure", sorted(ANSWER_FAILURES))
def test_a_failed_answer_post_is_the_sdks(hostile: Any, failure: str, answer: str) -> None:
    # Each kind of failure of the POST of an answer, a result or an error (no real server
    # fails it so: the SDK's server answers an answer with 202), over both transports.
    base = _server(_eliciting_call)

    def route(connection: Connection) -> None:
        if connection.method == "POST" and "method" not in connection.jsonrpc:
            ANSWER_FAILURES[failure](connection)
        else:
            base(connection)

    url = hostile({"/mcp": route}).url + "/mcp"
    timed = failure == "past the client's read timeout"

    async def nothing() -> None:
        pass

    async def main() -> dict[str, list[str]]:
        seen: dict[str, list[str]] = {}
        for name, factory in TRANSPORTS.items():
            timeout = httpx2.Timeout(30, read=1.0 if timed else 30)
            async with httpx2.AsyncClient(timeout=timeout) as client:
                seen[name] = await _after_answer(
                    factory, url, nothing, http_client=client, error=answer == "error"
                )
        return seen

    seen = run(main(), 60)
    assert seen["mcpstream"] == seen["sdk"]
    assert seen["sdk"] == ANSWER_EXPECTED[failure]


GET_STREAM_EXPECTED = {
    "500": ["call ok", "left"],
    "closed without an answer": [CALL_CLOSED, "left"],
}


@pytest.mark.parametrize("failure", sorted(GET_STREAM_EXPECTED))
def test_a_failed_answer_to_the_get_streams_request_is_the_sdks(hostile: Any, failure: str) -> None:
    # A ping on the GET stream, which the session answers: the failed POST of its answer ends
    # the transport or is dropped as over the SDK's transport (mcpstream only logged it before).
    # The server's 202 to notifications/initialized has a content type (text/plain) mcpstream
    # refuses for it; the GET stream opens all the same, as the SDK's writer opens it.
    base = _server(lambda connection, request_id: None, with_session=True)
    answered = threading.Event()

    def route(connection: Connection) -> None:
        if connection.method == "GET":
            ping = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
            if connection.stream_head() and connection.send(sse_event(ping)):
                connection.stopping.wait(8)
            connection.end()
        elif connection.method == "POST" and "method" not in connection.jsonrpc:
            ANSWER_FAILURES[failure](connection)
            answered.set()
        else:
            base(connection)

    url = hostile({"/mcp": route}).url + "/mcp"

    async def outcome(factory: Any) -> list[str]:
        answered.clear()
        seen: list[str] = []
        try:
            async with Client(factory(url), mode="legacy") as client:
                assert await anyio.to_thread.run_sync(answered.wait, 10)
                await anyio.sleep(0.5)  # the failure reaches the transport
                try:
                    with anyio.fail_after(4):
                        await client.call_tool("echo", {"text": "after"})
                    seen.append("call ok")
                except MCPError as exc:
                    seen.append(f"call {shape(exc)}")
            seen.append("left")
        except Exception as exc:
            seen.append("session " + shape(exc))
        return seen

    async def main() -> dict[str, list[str]]:
        return {name: await outcome(factory) for name, factory in TRANSPORTS.items()}

    seen = run(main(), 60)
    assert seen["mcpstream"] == seen["sdk"]
    assert seen["sdk"] == GET_STREAM_EXPECTED[failure]


# -- the User-Agent: the SDK's transport sets none, the HTTP client's headers supply it -------

HOST_CLIENTS: dict[str, Any] = {
    "sdk default": lambda: None,
    "host headers": lambda: create_mcp_http_client(headers={"User-Agent": "host/1"}),
    "host client headers": lambda: httpx2.AsyncClient(headers={"user-agent": "host-client/1"}),
    "host client default": httpx2.AsyncClient,
}
"""The clients a host hands the transport (None: the transport makes its own): the SDK's
factory with the headers a host passes it (what the 1.x line's ``streamablehttp_client(headers=)``
does), an ``httpx2.AsyncClient`` with headers of its own, and one with httpx2's defaults."""


async def _user_agent(factory: Any, url: str, mode: str, **options: Any) -> str:
    """The ``User-Agent`` the server saw on a ``tools/call`` under ``mcp.Client``."""
    async with Client(factory(url, **options), mode=mode) as client:
        result = await client.call_tool("user_agent", {})
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    return content.text


@pytest.mark.parametrize("case", sorted(HOST_CLIENTS))
def test_the_user_agent_is_the_one_the_sdks_transport_sends(
    mcp_server_urls: dict[str, str], mode: str, case: str
) -> None:
    url = mcp_server_urls["sse"]

    async def main() -> dict[str, str]:
        seen: dict[str, str] = {}
        for name, factory in TRANSPORTS.items():
            client = HOST_CLIENTS[case]()
            if client is None:
                seen[name] = await _user_agent(factory, url, mode)
            else:
                async with client:
                    seen[name] = await _user_agent(factory, url, mode, http_client=client)
        return seen

    async def sdk_default() -> str:
        async with create_mcp_http_client() as client:
            return str(client.headers["user-agent"])  # python-httpx2/<version>

    seen = run(main(), 60)
    assert seen["mcpstream"] == seen["sdk"]
    default = run(sdk_default())
    expected = {"host headers": "host/1", "host client headers": "host-client/1"}
    assert seen["sdk"] == expected.get(case, default)
    assert not seen["sdk"].startswith("mcpstream/")


def test_the_user_agent_of_mcpstreams_headers_wins_over_the_clients(
    mcp_server_urls: dict[str, str],
) -> None:
    url = mcp_server_urls["sse"]
    factory = TRANSPORTS["mcpstream"]

    async def main() -> list[str]:
        headers = {"USER-AGENT": "configured/1"}
        async with httpx2.AsyncClient(headers={"User-Agent": "host-client/1"}) as client:
            over_host = await _user_agent(
                factory, url, "legacy", http_client=client, headers=headers
            )
        own = await _user_agent(factory, url, "legacy", headers=headers)
        # An httpx client (mcpstream takes one, the SDK's 2.x transport does not): its default.
        async with httpx.AsyncClient() as client:
            httpx_default = await _user_agent(factory, url, "legacy", http_client=client)
        with pytest.warns(DeprecationWarning):
            deprecated = streamablehttp_client(url, headers={"User-Agent": "host/1"})
        async with deprecated as streams, ClientSession(*streams[:2]) as session:
            await session.initialize()
            result = await session.call_tool("user_agent", {})
        content = result.content[0]
        assert isinstance(content, types.TextContent)
        return [over_host, own, httpx_default, content.text]

    httpx_default = f"python-httpx/{httpx.__version__}"
    assert run(main(), 60) == ["configured/1", "configured/1", httpx_default, "host/1"]
