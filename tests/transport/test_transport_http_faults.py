"""Both transports against a server that does what real servers don't: bad bytes, odd framing,
dropped connections, stalls, oversized events, wrong types and ids, batches."""

from __future__ import annotations

import gzip
import json
import time
from typing import Any

import pytest
from mcpstream.errors import (
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportTimeoutError,
)

from .fault_server import Conn, FaultServer, Request, notification, result, sse

ECHO = "caf\u00e9 \u2028 \u2029 \u0085 \x0c \x0b \U0001f600"


def answer_with(parts_for: Any, *, with_length: bool = False, pause_s: float = 0.0) -> Any:
    """A handler answering each POST with the SSE ``parts_for(request_id)``."""

    async def handler(request: Request, conn: Conn) -> None:
        if request.method != "POST":
            await conn.respond(405, content_type=None)
            return
        await conn.sse_body(parts_for(request.jsonrpc_id), with_length=with_length, pause_s=pause_s)

    return handler


def call(transport: Any, timeout_s: float = 5.0) -> Any:
    return transport.request(method="tools/call", params={"name": "x"}, timeout_s=timeout_s)


@pytest.mark.parametrize("with_length", [False, True])
def test_u2028_and_other_unicode_line_breaks_inside_json_are_kept(
    make_transport: Any, fault_server: FaultServer, with_length: bool
) -> None:
    # The characters go unescaped on the wire, as a server may send them.
    url = fault_server.route(
        answer_with(
            lambda rid: [
                sse(json.dumps({"jsonrpc": "2.0", "id": rid, "result": ECHO}, ensure_ascii=False))
            ],
            with_length=with_length,
        )
    )
    assert call(make_transport(url)).result == ECHO


@pytest.mark.parametrize(
    "framing",
    [
        pytest.param(lambda text: [f"data: {text}\r\r".encode()], id="cr-only"),
        pytest.param(lambda text: [f"data: {text}\r\n\r".encode(), b"\n"], id="split-crlf"),
        pytest.param(lambda text: [b"\xef\xbb\xbf" + f"data: {text}\n\n".encode()], id="bom"),
        pytest.param(
            lambda text: [b"\xef\xbb", b"\xbf" + f"data: {text}\n\n".encode()], id="split-bom"
        ),
        pytest.param(
            lambda text: [bytes([b]) for b in f": hi\ndata: {text}\r\n\r\n".encode()],
            id="one-byte-chunks",
        ),
    ],
)
def test_sse_framing_follows_the_whatwg_rules(
    make_transport: Any, fault_server: FaultServer, framing: Any
) -> None:
    def parts(rid: Any) -> list[bytes]:
        text = json.dumps({"jsonrpc": "2.0", "id": rid, "result": ECHO}, ensure_ascii=False)
        return list(framing(text))

    url = fault_server.route(answer_with(parts))
    assert call(make_transport(url)).result == ECHO


def test_a_code_point_split_across_chunks_is_decoded_once_complete(
    make_transport: Any, fault_server: FaultServer
) -> None:
    def parts(rid: Any) -> list[bytes]:
        body = sse(
            json.dumps({"jsonrpc": "2.0", "id": rid, "result": "\U0001f600"}, ensure_ascii=False)
        )
        cut = body.index("\U0001f600".encode()) + 2
        return [body[:cut], body[cut:]]

    url = fault_server.route(answer_with(parts, pause_s=0.02))
    assert call(make_transport(url)).result == "\U0001f600"


@pytest.mark.parametrize("with_length", [False, True])
def test_invalid_utf8_is_a_protocol_error(
    make_transport: Any, fault_server: FaultServer, with_length: bool
) -> None:
    url = fault_server.route(
        answer_with(
            lambda rid: [b'data: {"jsonrpc":"2.0","id":1,"result":"\xff"}\n\n'],
            with_length=with_length,
        )
    )
    with pytest.raises(McpHttpTransportProtocolError, match="UTF-8"):
        call(make_transport(url))


def test_an_oversized_event_is_refused_with_the_limit_named(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(
        answer_with(lambda rid: [sse(result(rid, "x" * 5000))[:2000], b"x" * 5000])
    )
    with pytest.raises(McpHttpTransportProtocolError, match="1024"):
        call(make_transport(url, max_event_bytes=1024))


def test_a_connection_dropped_mid_event_is_a_transport_error(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(b'data: {"jsonrpc":"2.0","id":')
        conn.drop()

    url = fault_server.route(handler)
    with pytest.raises(McpHttpTransportError) as raised:
        call(make_transport(url))
    assert not isinstance(
        raised.value, McpHttpTransportProtocolError | McpHttpTransportTimeoutError
    )


@pytest.mark.parametrize("where", ["before-headers", "mid-stream", "mid-event", "json-body"])
def test_a_stall_past_the_timeout_raises_a_timeout_on_time(
    make_transport: Any, fault_server: FaultServer, where: str
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        if where == "before-headers":
            await conn.send(b"", pause_s=3)
            return
        if where == "json-body":
            await conn.start(200, content_type="application/json", content_length=100)
            await conn.send(b'{"jsonrpc":', pause_s=3)
            return
        await conn.start(200)
        if where == "mid-event":
            await conn.send(b"data: {", pause_s=3)
        else:
            await conn.send(sse(notification("notifications/message", {"n": 1})), pause_s=3)
        conn.drop()

    url = fault_server.route(handler)
    transport = make_transport(url)
    started = time.monotonic()
    with pytest.raises(McpHttpTransportTimeoutError):
        call(transport, timeout_s=0.4)
    assert 0.35 < time.monotonic() - started < 1.5


def test_an_event_half_received_after_the_response_keeps_the_call_open_until_it_completes(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(sse(result(request.jsonrpc_id, "ok")))
        await conn.send(b"data: " + notification("notifications/late").encode(), pause_s=0.3)
        await conn.send(b"\n\n", pause_s=1)
        conn.drop()

    transport = make_transport(fault_server.route(handler))
    assert call(transport).result == "ok"
    assert [n.method for n in transport.drain_notifications()] == ["notifications/late"]


@pytest.mark.parametrize(
    ("content_type", "pattern"),
    [("text/html", "unsupported content type 'text/html'"), (None, "no content type")],
)
def test_a_wrong_content_type_is_a_protocol_error(
    make_transport: Any, fault_server: FaultServer, content_type: str | None, pattern: str
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.respond(200, b"<html></html>", content_type=content_type)

    with pytest.raises(McpHttpTransportProtocolError, match=pattern):
        call(make_transport(fault_server.route(handler)))


@pytest.mark.parametrize("kind", ["sse", "json"])
@pytest.mark.parametrize(
    ("body_of", "pattern"),
    [
        pytest.param(lambda rid: result(rid + 1000, "ok"), "1001", id="another-id"),
        pytest.param(
            lambda rid: f"[{notification('notifications/a')},{result(rid, 'ok')}]",
            "batch",
            id="batch",
        ),
        pytest.param(
            lambda rid: '{"jsonrpc": "2.0", "id": 1, "result": ',
            "malformed JSON-RPC",
            id="malformed",
        ),
    ],
)
def test_a_wrong_answer_in_a_json_body_or_an_sse_event_is_a_protocol_error(
    make_transport: Any, fault_server: FaultServer, kind: str, body_of: Any, pattern: str
) -> None:
    """A response with another id, a batch, malformed JSON: each is refused, as a JSON body
    and as an SSE event."""

    async def handler(request: Request, conn: Conn) -> None:
        body = body_of(request.jsonrpc_id)
        if kind == "json":
            await conn.respond(200, body.encode())
        else:
            await conn.sse_body([sse(body)])

    with pytest.raises(McpHttpTransportProtocolError, match=pattern):
        call(make_transport(fault_server.route(handler)))


def test_an_empty_json_body_for_a_request_is_a_protocol_error(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.respond(200, b"")

    with pytest.raises(McpHttpTransportProtocolError, match="empty"):
        call(make_transport(fault_server.route(handler)))


def test_a_stream_that_ends_before_the_response_without_an_event_id_is_a_protocol_error(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(answer_with(lambda rid: [sse(notification("notifications/a"))]))
    with pytest.raises(McpHttpTransportProtocolError, match="ended before the response"):
        call(make_transport(url))


def test_a_message_after_the_response_of_a_stream_with_a_length_is_a_protocol_error(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(
        answer_with(
            lambda rid: [sse(result(rid, "ok")), sse(notification("notifications/late"))],
            with_length=True,
        )
    )
    with pytest.raises(McpHttpTransportProtocolError, match="after the response"):
        call(make_transport(url))


def test_notifications_after_the_response_of_an_open_stream_are_queued(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(sse(notification("notifications/before")))
        await conn.send(sse(result(request.jsonrpc_id, "ok")), pause_s=0.03)
        await conn.send(sse(notification("notifications/after")), pause_s=2)
        conn.drop()

    transport = make_transport(fault_server.route(handler))
    started = time.monotonic()
    assert call(transport).result == "ok"
    assert time.monotonic() - started < 1.0
    assert [n.method for n in transport.drain_notifications()] == [
        "notifications/before",
        "notifications/after",
    ]


@pytest.mark.parametrize(
    "late",
    [
        pytest.param(lambda rid: result(rid, "again"), id="second-response"),
        pytest.param(
            lambda rid: json.dumps({"jsonrpc": "2.0", "id": 99, "method": "ping"}), id="request"
        ),
    ],
)
def test_a_response_or_request_after_the_response_is_a_protocol_error(
    make_transport: Any, fault_server: FaultServer, late: Any
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        if request.is_client_reply:
            await conn.accept()
            return
        await conn.start(200)
        await conn.send(sse(result(request.jsonrpc_id, "ok")))
        await conn.send(sse(late(request.jsonrpc_id)), pause_s=2)
        conn.drop()

    with pytest.raises(McpHttpTransportProtocolError, match="after the response"):
        call(make_transport(fault_server.route(handler)))


def test_a_notification_answered_with_202_and_no_body_completes(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.accept()

    url = fault_server.route(handler)
    transport = make_transport(url, listen=False)
    transport.send_notification(method="notifications/cancelled", params={"requestId": 1})
    [recorded] = fault_server.recorded(url)
    assert recorded.json == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 1},
    }


@pytest.mark.parametrize("status", [200, 204])
def test_a_notification_answered_with_an_empty_untyped_body_completes(
    make_transport: Any, fault_server: FaultServer, status: int
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.respond(status, b"", content_type=None)

    transport = make_transport(fault_server.route(handler))
    transport.send_notification(method="notifications/x", params=None)


@pytest.mark.parametrize(
    "body",
    [result(1, "what").encode(), b'{"jsonrpc":"2.0","result":{}}', b"not json at all"],
)
def test_a_json_body_answering_a_notification_is_discarded(
    make_transport: Any, fault_server: FaultServer, body: bytes
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.respond(200, body)

    transport = make_transport(fault_server.route(handler))
    transport.send_notification(method="notifications/x", params=None)
    assert transport.drain_notifications() == ()


@pytest.mark.parametrize("with_length", [False, True])
def test_a_gzip_compressed_event_stream_is_decoded(
    make_transport: Any, fault_server: FaultServer, with_length: bool
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        text = json.dumps({"jsonrpc": "2.0", "id": request.jsonrpc_id, "result": ECHO})
        body = gzip.compress(sse(notification("notifications/z")) + sse(text))
        await conn.start(
            200,
            {"Content-Encoding": "gzip"},
            content_length=len(body) if with_length else None,
        )
        await conn.send(body[:10], pause_s=0.01)
        await conn.send(body[10:])
        await conn.end()

    transport = make_transport(fault_server.route(handler))
    assert call(transport).result == ECHO
    assert [n.method for n in transport.drain_notifications()] == ["notifications/z"]


@pytest.mark.parametrize("ending", ["\r\n", "\n"])
def test_a_header_value_that_cannot_be_sent_is_not_quoted_in_the_error(
    make_transport: Any, fault_server: FaultServer, ending: str
) -> None:
    # An API key pasted with its line end: httpx refuses the value and quotes it whole.
    url = fault_server.route(answer_with(lambda rid: [sse(result(rid, {}))]))
    key = "sk-live-0123456789abcdef"
    transport = make_transport(url, headers={"X-Api-Key": key + ending})
    with pytest.raises(McpHttpTransportError) as raised:
        call(transport)
    assert "0123456789abcdef" not in str(raised.value)
    assert "<redacted>" in str(raised.value)


def test_cancelling_an_async_call_closes_its_stream(
    fault_server: FaultServer, tmp_path: Any
) -> None:
    # The server keeps the call's SSE stream open with comments; once the caller's task is
    # cancelled, the transport must close that stream (the server's next write fails).
    import asyncio
    import threading

    from mcpstream.models import ResolvedMcpServer
    from mcpstream.transport_http import AsyncMcpHttpTransport

    closed = threading.Event()

    async def handler(request: Request, conn: Conn) -> None:
        if request.method != "POST":
            await conn.respond(405, content_type=None)
            return
        await conn.start()
        try:
            for _ in range(200):  # 10 s at most
                await conn.send(b": still working\n\n", pause_s=0.05)
        except (ConnectionError, OSError):
            closed.set()

    url = fault_server.route(handler)
    server = ResolvedMcpServer(id="test", url=url, headers={}, call_timeout_s=30.0)

    async def main() -> None:
        transport = AsyncMcpHttpTransport(server=server, workspace_root=tmp_path, listen=False)
        try:
            task = asyncio.create_task(call_async(transport))
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # Checked before close(), which would end every connection anyway.
            seen = await asyncio.get_running_loop().run_in_executor(None, closed.wait, 3.0)
            assert seen, "the server kept writing to the stream of a cancelled call"
        finally:
            await transport.close()

    asyncio.run(main())


async def call_async(transport: Any) -> Any:
    return await transport.request(method="tools/call", params={"name": "x"}, timeout_s=30.0)
