"""No connection or thread is left behind, whatever way calls end."""

from __future__ import annotations

import threading
import time
from typing import Any

from mcpstream import close_pools
from mcpstream._http.core.cancel import CLOSE_WAIT_S
from mcpstream.errors import McpHttpTransportError
from mcpstream.server_requests import McpServerRequestHandlerError

from .fault_server import Conn, FaultServer, Request, notification, result, server_request, sse
from .helpers import ScriptedHandler, open_sockets_to

CALLS = 1000


CANCELLED_IDS: list[int] = []
"""The ids the client's ``notifications/cancelled`` named."""


async def assorted_failures(request: Request, conn: Conn) -> None:
    """Ends each call in one of several ways, chosen by the call's JSON-RPC id."""
    if request.is_client_reply:
        await conn.accept()
        return
    if request.json.get("method") == "notifications/cancelled":
        CANCELLED_IDS.append(request.json["params"]["requestId"])
        await conn.accept()
        return
    rid = request.jsonrpc_id
    case = rid % 10
    if rid % 50 == 0:
        # Stall: the call times out while the stream is open.
        await conn.start(200)
        await conn.send(sse(notification("notifications/a")), pause_s=5)
        conn.drop()
    elif rid % 50 == 25:
        # Success on an open-ended stream that the server keeps open after the response.
        await conn.start(200)
        await conn.send(sse(result(rid, "ok")), pause_s=5)
        conn.drop()
    elif case == 0:
        await conn.respond(500, b"boom", content_type="text/plain")
    elif case == 1:
        await conn.respond(200, b"<html/>", content_type="text/html")
    elif case == 2:
        await conn.start(200)
        await conn.send(b'data: {"jsonrpc":')
        conn.drop()
    elif case == 3:
        # Bad bytes in a stream the server keeps open: the reader must be stopped.
        await conn.start(200)
        await conn.send(b"data: \xff\xfe\n\n", pause_s=5)
        conn.drop()
    elif case == 4:
        await conn.sse_body([sse(server_request(f"s{rid}", "elicitation/create"))])
    elif case == 5:
        await conn.sse_body([sse("x" * 3000)])
    elif case == 6:
        await conn.respond(200, result(rid + 1, "wrong id").encode())
    elif case == 7:
        await conn.sse_body([sse(result(rid, "ok")), sse(result(rid, "twice"))], with_length=True)
    elif case == 8:
        await conn.sse_body([sse(notification("notifications/b"))])
    else:
        await conn.sse_body([sse(result(rid, "ok"))])


def test_a_thousand_calls_ending_in_assorted_errors_leave_no_connection_or_thread(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(assorted_failures)
    threads_before = threading.active_count()
    sockets_before = open_sockets_to(fault_server.port)
    handler = ScriptedHandler({"elicitation/create": McpServerRequestHandlerError(1, "no")})
    transport = make_transport(
        url, server_request_handler=handler, max_event_bytes=2048, listen=False
    )
    outcomes: dict[str, int] = {}
    names: list[str] = []
    del CANCELLED_IDS[:]
    for _ in range(CALLS):
        try:
            transport.request(method="tools/call", params=None, timeout_s=0.05)
            name = "ok"
        except McpHttpTransportError as exc:
            name = type(exc).__name__
        outcomes[name] = outcomes.get(name, 0) + 1
        names.append(name)
    # Only calls that timed out were cancelled at the server (never one answered or refused);
    # the transport's ids are 1, 2, 3...
    timed_out = {rid for rid, name in enumerate(names, 1) if name.endswith("TimeoutError")}
    assert CANCELLED_IDS and set(CANCELLED_IDS) <= timed_out
    assert set(outcomes) == {
        "ok",
        "McpHttpTransportError",
        "McpHttpTransportProtocolError",
        "McpHttpTransportRemoteError",
        "McpHttpTransportResponseTooLargeError",
        "McpHttpTransportTimeoutError",
    }, outcomes
    # Every reader thread was joined before its call returned, and every response closed:
    # only the pool's idle keep-alive connections may remain (the server holds its streams open).
    # The cancellations sent after the timeouts run beside the errors, each within its bound.
    # The process pool's reaper thread (and idle connections) are counted out: the late
    # cancellations' connections going idle may start it again meanwhile.
    deadline = time.monotonic() + CLOSE_WAIT_S
    while threading.active_count() > threads_before and time.monotonic() < deadline:
        close_pools()
        time.sleep(0.02)
    assert threading.active_count() <= threads_before
    assert open_sockets_to(fault_server.port) - sockets_before <= 20
    transport.close()
    close_pools()  # a transport's own client borrows the process's pool: its idle connections
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if threading.active_count() <= threads_before and (
            open_sockets_to(fault_server.port) <= sockets_before
        ):
            break
        time.sleep(0.05)
    assert threading.active_count() <= threads_before
    assert open_sockets_to(fault_server.port) <= sockets_before
