"""The Streamable HTTP transport against hand-made hostile servers: one test per class of
issue 11 that the transport closes, each with the sync and the async transport (and, as the
whole suite, once per codec backend: ``MCPSTREAM_BACKEND=native`` and ``=python``).

* the deadline per operation (3): headers trickled to a call, to ``close()``'s DELETE and to
  the GET stream; comments sent faster than the quiet window after a complete response;
* the byte budget per body (4): a JSON body past the cap, a 2 GiB ``Content-Length``, gzip and
  deflate bombs (JSON and SSE);
* the bounded notification queue (4): floods on a call's stream and on the GET stream, and the
  callback route, which has no queue;
* server text in messages (6): a 4 MiB response id, control characters in an error body;
* event ids and ``retry`` (5): a non-ASCII id, a retry past any sleep, ``retry: 0``.

Elapsed times are bounded generously (the machine running the suite is loaded).
"""

from __future__ import annotations

import functools
import itertools
import json
import resource
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from mcpstream.errors import (
    McpHttpTransportProtocolError,
    McpHttpTransportRemoteError,
    McpHttpTransportResponseTooLargeError,
    McpHttpTransportTimeoutError,
)

from .conftest import Serve
from .server import (
    Connection,
    HostileServer,
    chunked,
    gzip_bomb,
    notification,
    response_head,
    result,
    sse_event,
)

MiB = 1024 * 1024
SESSION = "hostile-session"
PADDED_HEAD = {"Content-Type": "application/json", "X-Padding": "p" * 60}
"""Headers long enough that trickled a byte at a time they outlast every timeout below."""

MakeTransport = Callable[..., Any]


def _serve(hostile: Serve, route: Callable[[Connection], None]) -> tuple[HostileServer, str]:
    server = hostile({"/mcp": route})
    return server, f"{server.url}/mcp"


def _call(transport: Any, timeout_s: float = 5.0) -> Any:
    return transport.request(method="tools/call", params={"name": "t"}, timeout_s=timeout_s)


@dataclass
class Failure:
    """What a failing call raised (``error``), how long it took, and the server's log."""

    error: BaseException
    elapsed_s: float
    server: HostileServer


def _failing_call(
    hostile: Serve,
    make_transport: MakeTransport,
    route: Callable[[Connection], None],
    expected: type[BaseException],
    *,
    timeout_s: float = 5.0,
    match: str | None = None,
    **options: Any,
) -> Failure:
    """Call a server of one ``route`` (no GET stream); the call must raise ``expected``."""
    server, url = _serve(hostile, route)
    transport = make_transport(url, listen=False, **options)
    started = time.monotonic()
    with pytest.raises(expected, match=match) as raised:
        _call(transport, timeout_s=timeout_s)
    return Failure(raised.value, time.monotonic() - started, server)


def _session_route(
    get: Callable[[Connection], None] | None = None,
    delete: Callable[[Connection], None] | None = None,
    post: Callable[[Connection], None] | None = None,
) -> Callable[[Connection], None]:
    """A server with a session: ``initialize`` answered, notifications accepted, the GET, the
    DELETE and other POSTs left to the routes given (405 and 200 by default)."""

    def route(conn: Connection) -> None:
        message = conn.jsonrpc
        if conn.method == "POST" and message.get("method") == "initialize":
            answer = result(message["id"], {"protocolVersion": "2025-11-25", "capabilities": {}})
            conn.json(answer, headers={"Mcp-Session-Id": SESSION})
        elif conn.method == "POST" and "id" not in message:
            conn.send(response_head("202 Accepted", {"Content-Length": "0"}))
        elif conn.method == "POST" and post is not None:
            post(conn)
        elif conn.method == "GET" and get is not None:
            get(conn)
        elif conn.method == "DELETE" and delete is not None:
            delete(conn)
        else:
            conn.respond(b"", status="405 Method Not Allowed", content_type="text/plain")

    return route


def _open_session(transport: Any) -> None:
    response = transport.request(
        method="initialize",
        params={"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}},
        timeout_s=5.0,
    )
    assert response.error is None
    transport.set_negotiated_protocol_version("2025-11-25")
    transport.send_notification(method="notifications/initialized", params=None)


def _in_session(
    hostile: Serve, make_transport: MakeTransport, get: Callable[[Connection], None], **options: Any
) -> Any:
    """A transport in a session with a server whose GET stream is ``get``."""
    _, url = _serve(hostile, _session_route(get=get))
    transport = make_transport(url, **options)
    _open_session(transport)
    return transport


def _timed(gets: list[float], then: Callable[[Connection], None]) -> Callable[[Connection], None]:
    """``then``, a GET route, recording in ``gets`` when each GET came."""

    def get(conn: Connection) -> None:
        gets.append(time.monotonic())
        then(conn)

    return get


def _wait_for(predicate: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "the condition was not met in time"
        time.sleep(0.02)


def _trickle_head(conn: Connection) -> None:
    conn.trickle(response_head("200 OK", {**PADDED_HEAD, "Content-Length": "2"}) + b"{}", 0.1)


# -- 3: one deadline per operation ---------------------------------------------------------------


def test_a_call_obeys_its_timeout_when_the_headers_are_trickled(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    failure = _failing_call(
        hostile, make_transport, _trickle_head, McpHttpTransportTimeoutError, timeout_s=1.0
    )
    assert failure.elapsed_s < 4.0


def test_close_bounds_the_delete_when_its_headers_are_trickled(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    server, url = _serve(hostile, _session_route(delete=_trickle_head))
    transport = make_transport(url, listen=False, call_timeout_s=1.0)
    _open_session(transport)
    started = time.monotonic()
    transport.close()
    assert time.monotonic() - started < 4.0
    assert ("DELETE", "/mcp") in server.requests


def test_each_get_of_the_stream_obeys_its_deadline_when_the_headers_are_trickled(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    gets: list[float] = []

    def trickle(conn: Connection) -> None:
        conn.trickle(response_head("200 OK", {**PADDED_HEAD}), 0.2)

    transport = _in_session(hostile, make_transport, _timed(gets, trickle), call_timeout_s=1.0)
    _wait_for(lambda: len(gets) >= 2, timeout_s=10.0)
    # The first GET waited 1 s for its head, then the policy's first delay (0.5 s).
    assert gets[1] - gets[0] < 4.0
    started = time.monotonic()
    transport.close()
    assert time.monotonic() - started < 4.0


def test_a_complete_response_is_no_timeout_when_comments_outpace_the_quiet_window(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    def post(conn: Connection) -> None:
        conn.stream_head()
        conn.send(sse_event(result(conn.jsonrpc["id"], "done")))
        for _ in range(300):  # a comment every 20 ms for 6 s
            if not conn.send(b": keep-alive\n\n") or conn.stopping.wait(0.02):
                return

    _, url = _serve(hostile, post)
    transport = make_transport(url, listen=False)
    started = time.monotonic()
    assert _call(transport, timeout_s=3.0).result == "done"
    assert time.monotonic() - started < 2.5


# -- 4: one byte budget per body -----------------------------------------------------------------


@functools.cache
def _bomb(kind: str) -> bytes:
    """128 MiB of spaces, compressed (about 130 KB), as a JSON body or one SSE event."""
    if kind == "sse-gzip":
        return gzip_bomb(128 * MiB, prefix=b"data: ")
    return gzip_bomb(128 * MiB, coding="deflate" if kind == "json-deflate" else "gzip")


def _oversized(kind: str) -> Callable[[Connection], None]:
    def route(conn: Connection) -> None:
        if kind == "json-length":
            head = {"Content-Type": "application/json", "Content-Length": str(2 * 1024 * MiB)}
            conn.send(response_head("200 OK", head) + b'{"jsonrpc": "2.0", ')
            conn.stopping.wait(5)
        elif kind == "json-chunked":
            body = result(conn.jsonrpc["id"], "x" * (2 * MiB))
            head = {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
            data = json.dumps(body).encode()
            parts = [data[i : i + 65536] for i in range(0, len(data), 65536)]
            conn.send(response_head("200 OK", head) + chunked(*parts))
        else:
            coding = "deflate" if kind == "json-deflate" else "gzip"
            body = _bomb(kind)
            if kind == "sse-gzip":
                conn.stream_head({"Content-Encoding": coding})
                conn.send(body)
                conn.end()
            else:
                conn.respond(body, headers={"Content-Encoding": coding})

    return route


@pytest.mark.parametrize("kind", ["json-chunked", "json-gzip", "json-deflate", "sse-gzip"])
def test_a_body_past_the_byte_budget_is_refused_after_decompression_within_bounded_memory(
    hostile: Serve, make_transport: MakeTransport, kind: str
) -> None:
    peak_before_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    error = _failing_call(
        hostile,
        make_transport,
        _oversized(kind),
        McpHttpTransportResponseTooLargeError,
        timeout_s=20.0,
        max_event_bytes=1 * MiB,
    ).error
    assert isinstance(error, McpHttpTransportResponseTooLargeError)
    assert error.limit == 1 * MiB
    assert "max_event_bytes" in str(error)
    # Decompressed whole, the bomb would take 128 MiB at least (and httpx decompresses each
    # 256 KiB read at once: some 250 MiB); piece by piece, a few MiB.
    growth_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before_kib) / 1024
    assert growth_mib < 64


def test_a_2_gib_content_length_is_refused_before_reading_with_the_default_budget(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    failure = _failing_call(
        hostile,
        make_transport,
        _oversized("json-length"),
        McpHttpTransportResponseTooLargeError,
        timeout_s=10.0,
        match="Content-Length",
    )
    assert isinstance(failure.error, McpHttpTransportResponseTooLargeError)
    assert failure.error.limit == 64 * MiB
    assert failure.elapsed_s < 3.0


# -- 4: a bounded notification queue -------------------------------------------------------------

FLOOD = 30_000
QUEUE = 1_000


def _flood() -> bytes:
    return b"".join(sse_event(notification(n=n)) for n in range(FLOOD))


def test_a_notification_flood_on_a_call_keeps_the_newest_within_the_bound(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    def post(conn: Connection) -> None:
        conn.stream_head()
        conn.send(_flood() + sse_event(result(conn.jsonrpc["id"])))
        conn.end()

    _, url = _serve(hostile, post)
    transport = make_transport(url, listen=False, max_queued_notifications=QUEUE)
    assert _call(transport, timeout_s=30.0).result == "ok"
    assert transport.dropped_notifications == FLOOD - QUEUE
    queued = transport.drain_notifications()
    assert [n.params["n"] for n in queued] == list(range(FLOOD - QUEUE, FLOOD))


def _flooding_get() -> Callable[[Connection], None]:
    floods: list[int] = []

    def get(conn: Connection) -> None:
        if floods:  # one flood; later GETs are refused
            conn.respond(b"", status="405 Method Not Allowed", content_type="text/plain")
            return
        floods.append(1)
        conn.stream_head()
        conn.send(_flood())
        conn.stopping.wait(10)  # the stream stays open

    return get


def test_a_notification_flood_on_the_get_stream_keeps_the_newest_within_the_bound(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    transport = _in_session(
        hostile, make_transport, _flooding_get(), max_queued_notifications=QUEUE
    )
    _wait_for(lambda: transport.dropped_notifications == FLOOD - QUEUE, timeout_s=30.0)
    queued = transport.drain_notifications()
    assert [n.params["n"] for n in queued] == list(range(FLOOD - QUEUE, FLOOD))


def test_the_callback_route_gets_every_notification_of_a_flood_without_a_queue(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    received: list[Any] = []
    transport = _in_session(
        hostile,
        make_transport,
        _flooding_get(),
        max_queued_notifications=QUEUE,
        on_notification=received.append,
    )
    _wait_for(lambda: len(received) == FLOOD, timeout_s=30.0)
    assert transport.dropped_notifications == 0
    assert transport.drain_notifications() == ()


# -- 6: server text in messages ------------------------------------------------------------------


def test_a_4_mib_response_id_becomes_a_short_excerpt_in_the_message(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    message = str(
        _failing_call(
            hostile,
            make_transport,
            lambda conn: conn.json(result("x" * (4 * MiB))),
            McpHttpTransportProtocolError,
            match="JSON-RPC id 'xxx",
        ).error
    )
    assert len(message) < 1000
    assert "truncated" in message


def test_control_characters_of_an_error_body_are_escaped_in_the_message(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    body = b"\x1b]0;pwned\x07\x1b[31mboom\x1b[0m\r\nX-Injected: 1\x00" + b"!" * 100_000
    message = str(
        _failing_call(
            hostile,
            make_transport,
            lambda conn: conn.respond(body, status="500 Oops", content_type="text/plain"),
            McpHttpTransportRemoteError,
        ).error
    )
    assert not any(ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0 for char in message)
    assert "\\x1b[31mboom" in message
    assert len(message) < 2500


# -- 5: event ids and retry ----------------------------------------------------------------------

NOTIFICATION_N = '{"jsonrpc": "2.0", "method": "n"}'


def test_a_non_ascii_event_id_is_not_used_for_resumption(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    def post(conn: Connection) -> None:
        conn.stream_head()
        conn.send(f"id: \u00e9t\u00e9\ndata: {NOTIFICATION_N}\n\n".encode())
        conn.end()

    failure = _failing_call(
        hostile, make_transport, post, McpHttpTransportProtocolError, match="ended before"
    )
    assert [method for method, _ in failure.server.requests] == ["POST"]


def test_the_get_stream_drops_a_non_ascii_event_id_and_reconnects_without_it(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    seen: list[str | None] = []

    def get(conn: Connection) -> None:
        seen.append(conn.headers.get("last-event-id"))
        if len(seen) == 1:
            conn.stream_head()
            conn.send(f"id: \u00e9\ndata: {NOTIFICATION_N}\n\n".encode())
            conn.end()
        else:
            conn.respond(b"", status="405 Method Not Allowed", content_type="text/plain")

    transport = _in_session(hostile, make_transport, get)
    _wait_for(lambda: len(seen) >= 2, timeout_s=10.0)
    assert seen[:2] == [None, None]
    assert [n.method for n in transport.drain_notifications()] == ["n"]


def test_a_retry_past_any_sleep_is_clamped_and_the_get_stream_survives_it(
    hostile: Serve, make_transport: MakeTransport, monkeypatch: pytest.MonkeyPatch
) -> None:
    died: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: died.append(args.exc_value))
    gets: list[float] = []

    def retry_forever(conn: Connection) -> None:
        conn.stream_head()
        # 10**15 ms: past what a thread can wait for (PY_TIMEOUT_MAX).
        conn.send(sse_event(notification(), event_id="g1", retry=10**15))
        conn.end()

    transport = _in_session(hostile, make_transport, _timed(gets, retry_forever))
    _wait_for(lambda: bool(transport.drain_notifications()), timeout_s=10.0)
    time.sleep(0.5)  # the stream now sleeps its clamped retry (60 s), alive
    assert died == []
    assert len(gets) == 1
    started = time.monotonic()
    transport.close()  # which cuts the sleep short
    assert time.monotonic() - started < 4.0
    assert died == []


def test_a_call_stream_with_a_retry_past_its_deadline_times_out_at_once(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    def post(conn: Connection) -> None:
        conn.stream_head()
        conn.send(sse_event(notification(), event_id="e1", retry=10**15))
        conn.end()

    failure = _failing_call(
        hostile, make_transport, post, McpHttpTransportTimeoutError, timeout_s=2.0
    )
    assert failure.elapsed_s < 1.5
    # The call and its cancellation (the call timed out on the server's stream; the
    # notification goes after the error, within its own bound): no GET.
    deadline = time.monotonic() + 5.0
    while len(failure.server.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [method for method, _ in failure.server.requests] == ["POST", "POST"]


def _retry_zero(conn: Connection) -> None:
    conn.stream_head()
    conn.send(sse_event(notification(), event_id="e1", retry=0))
    conn.end()


def test_retry_0_on_a_call_reconnects_at_the_floor_and_gives_up_without_progress(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    failure = _failing_call(
        hostile,
        make_transport,
        _retry_zero,
        McpHttpTransportProtocolError,
        timeout_s=10.0,
        match="ended before the response",
    )
    # Five fruitless reconnections (the policy's max_attempts), 100 ms apart at least.
    assert [method for method, _ in failure.server.requests] == ["POST"] + ["GET"] * 5
    assert failure.elapsed_s >= 0.45


def test_retry_0_on_the_get_stream_reconnects_at_most_at_the_floor(
    hostile: Serve, make_transport: MakeTransport
) -> None:
    gets: list[float] = []

    def retry_at_once(conn: Connection) -> None:
        conn.stream_head()
        conn.send(sse_event(notification(n=len(gets)), event_id=f"g{len(gets)}", retry=0))
        conn.end()

    transport = _in_session(hostile, make_transport, _timed(gets, retry_at_once))
    _wait_for(lambda: len(gets) >= 3, timeout_s=10.0)
    time.sleep(1.0)
    transport.close()
    # Each connection brings a new event, so the stream goes on: at most ten a second.
    span = gets[-1] - gets[0]
    assert len(gets) <= span / 0.1 + 2
    assert all(later - earlier >= 0.09 for earlier, later in itertools.pairwise(gets))
