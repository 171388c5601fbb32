"""The pool's rules of ``mcpstream._http.h1.pool``, which do no I/O: when an idle connection
expires (``IdlePool`` on a fake clock: the times are the test's numbers), how long a server's
``Keep-Alive: timeout=`` lets one stay idle (``idle_expiry``), and which failed requests are
sent again (``may_resend``). The drivers' use of them, over real sockets, is in
``test_h1_resend.py`` and ``test_h1_nginx.py``."""

from __future__ import annotations

import errno

import pytest
from mcpstream._http.h1.pool import (
    KEEPALIVE_MARGIN,
    Ended,
    IdlePool,
    Key,
    Limits,
    Prepared,
    idle_expiry,
    may_resend,
)

HERE: Key = (b"http", b"127.0.0.1", 8000)
THERE: Key = (b"http", b"127.0.0.1", 9000)


def pool(**limits: float | int | None) -> IdlePool[str]:
    return IdlePool(Limits(**limits))  # type: ignore[arg-type]


# -- idle_expiry: the server's Keep-Alive timeout, less a margin -----------------------------


@pytest.mark.parametrize(
    ("headers", "expiry"),
    [
        ([], 5.0),  # no field: the pool's own keepalive_expiry
        ([(b"Keep-Alive", b"timeout=60, max=100")], 5.0),  # longer than ours: ours
        ([(b"Keep-Alive", b"timeout=3, max=100")], 3.0 - KEEPALIVE_MARGIN),
        ([(b"keep-alive", b"max=100,TIMEOUT = 4")], 4.0 - KEEPALIVE_MARGIN),
        ([(b"Keep-Alive", b'timeout="4"')], 4.0 - KEEPALIVE_MARGIN),
        ([(b"Keep-Alive", b"timeout=1")], 0.5),  # a short one: half of it
        ([(b"Keep-Alive", b"timeout=0.4")], 0.2),
        ([(b"Keep-Alive", b"timeout=0")], 0.0),  # not kept at all
        ([(b"Keep-Alive", b"timeout=abc")], 5.0),  # unreadable: ignored
        ([(b"Keep-Alive", b"timeout=-3")], 5.0),
        ([(b"Keep-Alive", b"timeout=nan")], 5.0),
        ([(b"Keep-Alive", b"timeout=inf")], 5.0),
        ([(b"Keep-Alive", b"max=5")], 5.0),  # no timeout named
        ([(b"Keep-Alivf", b"timeout=1")], 5.0),  # another field of the same length
        ([(b"Keep-Alive", b"timeout=3"), (b"Keep-Alive", b"timeout=2")], 1.0),  # the shortest
    ],
)
def test_a_keep_alive_timeout_shortens_the_idle_expiry(
    headers: list[tuple[bytes, bytes]], expiry: float
) -> None:
    assert idle_expiry(headers, 5.0) == pytest.approx(expiry)


def test_no_head_keeps_the_pools_expiry() -> None:
    assert idle_expiry(None, 7.0) == 7.0


# -- IdlePool: each connection expires at its own time -------------------------------------


def test_an_idle_connection_is_handed_out_until_its_expiry_and_dropped_after() -> None:
    idle = pool(keepalive_expiry=5.0)
    idle.opened()
    assert idle.put("a", HERE, now=100.0) == []
    assert idle.take_fresh(HERE, now=105.0) == "a"  # at its end still
    idle.put("a", HERE, now=200.0)
    assert idle.take_fresh(HERE, now=205.001) is None  # past it: not the straight way
    assert idle.claim(HERE, now=205.001) == (["a"], None, True)  # dropped, a new one opens
    assert idle.open == 1  # (the new one)


def test_a_server_keep_alive_timeout_expires_its_connection_before_the_pools() -> None:
    idle = pool(keepalive_expiry=30.0)
    idle.opened()
    idle.opened()
    idle.put("long", HERE, now=0.0)
    idle.put("short", HERE, now=0.0, expiry=idle_expiry([(b"Keep-Alive", b"timeout=1")], 30.0))
    assert idle.expire(now=0.5) == []
    assert idle.expire(now=0.51) == ["short"]  # the newest, dropped before the older one
    assert len(idle) == 1 and idle.open == 1
    assert idle.take_fresh(HERE, now=0.6) == "long"


def test_an_expired_connection_anywhere_in_the_pool_stops_the_straight_way() -> None:
    # The straight way (``take_fresh``) hands out the newest only when none has expired, so that
    # an expired one is never left open; here the expired one is the newest, not the oldest.
    idle = pool(keepalive_expiry=30.0)
    idle.opened()
    idle.opened()
    idle.put("old", THERE, now=0.0)
    idle.put("new", HERE, now=1.0, expiry=0.5)
    assert idle.take_fresh(HERE, now=2.0) is None
    assert idle.claim(HERE, now=2.0) == (["new"], None, True)
    assert idle.take_fresh(THERE, now=2.0) == "old"  # the earliest end was set right again


def test_a_connection_taken_out_leaves_the_others_expiry_right() -> None:
    idle = pool(keepalive_expiry=30.0)
    idle.opened()
    idle.opened()
    idle.put("soon", THERE, now=0.0, expiry=1.0)
    idle.put("late", HERE, now=0.0)
    assert idle.claim(THERE, now=0.5) == ([], "soon", False)
    # "soon" is gone: past its end, "late" is still handed out (one scan, then the straight way)
    assert idle.claim(HERE, now=2.0) == ([], "late", False)
    idle.put("late", HERE, now=3.0)
    assert idle.take_fresh(HERE, now=4.0) == "late"


def test_a_new_connection_is_claimed_when_reuse_is_refused() -> None:
    # A request sent again after its reused connection closed goes on a new connection, even
    # with one idle to its origin.
    idle = pool(keepalive_expiry=30.0)
    idle.opened()
    idle.put("idle", HERE, now=0.0)
    assert idle.claim(HERE, now=1.0, reuse=False) == ([], None, True)
    assert idle.open == 2 and len(idle) == 1
    assert idle.claim(HERE, now=1.0) == ([], "idle", False)


def test_a_full_pool_drops_an_idle_connection_for_a_new_one_when_reuse_is_refused() -> None:
    idle = pool(max_connections=1, keepalive_expiry=30.0)
    idle.opened()
    idle.put("idle", HERE, now=0.0)
    assert idle.claim(HERE, now=1.0, reuse=False) == (["idle"], None, True)
    assert idle.open == 1 and len(idle) == 0


def test_a_closed_pool_hands_out_nothing_new_either() -> None:
    idle = pool()
    assert idle.close() == []
    with pytest.raises(RuntimeError, match="closed"):
        idle.claim(HERE, now=0.0, reuse=False)
    with pytest.raises(RuntimeError, match="closed"):
        idle.claim(HERE, now=0.0)


def test_the_oldest_idle_connections_go_first_beyond_max_keepalive() -> None:
    idle = pool(max_keepalive_connections=2, keepalive_expiry=30.0)
    for _ in range(3):
        idle.opened()
    idle.put("a", HERE, now=0.0, expiry=10.0)
    idle.put("b", HERE, now=1.0, expiry=1.0)
    assert idle.put("c", HERE, now=2.0) == ["a"]
    assert idle.open == 2
    assert idle.expire(now=2.5) == ["b"]
    assert idle.take(HERE) == "c"


# -- may_resend: once, only for a reused connection closed before any answer ----------------

RESET = ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")
WHOLE = Prepared(HERE, b"POST / HTTP/1.1\r\n\r\n", b"{}", False, False)
STREAMED = Prepared(HERE, b"POST / HTTP/1.1\r\n\r\n", None, True, False)


@pytest.mark.parametrize("error", [None, RESET, BrokenPipeError(errno.EPIPE, "Broken pipe")])
def test_a_reused_connection_closed_before_any_answer_is_resent(
    error: BaseException | None,
) -> None:
    assert may_resend(True, WHOLE, (False, error))


@pytest.mark.parametrize(
    ("reused", "prepared", "ended"),
    [
        (False, WHOLE, (False, None)),  # a new connection: the server took it for this request
        (False, WHOLE, (False, RESET)),
        (True, WHOLE, (True, None)),  # a byte of the answer came: the server read the request
        (True, WHOLE, (True, RESET)),
        (True, STREAMED, (False, None)),  # a streamed body, read once: it cannot be written again
        (True, WHOLE, None),  # the connection did not end (a timeout, a framing error)
        (True, WHOLE, (False, TimeoutError("timed out"))),  # silence is no close
        (True, WHOLE, (False, OSError(errno.EHOSTUNREACH, "No route to host"))),
    ],
)
def test_anything_else_is_not_resent(reused: bool, prepared: Prepared, ended: Ended | None) -> None:
    assert not may_resend(reused, prepared, ended)


def test_the_next_expiry_is_the_first_idle_connections_end() -> None:
    # What the async transport's timer waits for (it closes idle connections as they expire).
    pool: IdlePool[str] = IdlePool(Limits(keepalive_expiry=5.0))
    assert pool.next_expiry() is None  # nothing idle: no timer
    pool.opened()
    pool.opened()
    pool.put("a", HERE, 10.0)
    pool.put("b", HERE, 12.0, expiry=1.0)  # a server's Keep-Alive: timeout= cut it short
    assert pool.next_expiry() == 13.0
    assert pool.expire(13.001) == ["b"]
    assert pool.next_expiry() == 15.0
    assert pool.expire(15.001) == ["a"]
    assert pool.next_expiry() is None and pool.open == 0


def test_no_expiry_sets_no_timer() -> None:
    pool: IdlePool[str] = IdlePool(Limits(keepalive_expiry=float("inf")))
    pool.opened()
    pool.put("a", HERE, 1.0)
    assert pool.next_expiry() is None
    assert pool.expire(1e9) == []
