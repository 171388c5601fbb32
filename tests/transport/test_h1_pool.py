"""The pool's rules without I/O (``mcpstream._http.h1.pool.IdlePool``), on a fake clock."""

from __future__ import annotations

from mcpstream._http.h1.pool import IdlePool, Limits

KEY = (b"http", b"127.0.0.1", 80)


def test_the_next_expiry_is_the_oldest_idle_connections() -> None:
    pool: IdlePool[str] = IdlePool(Limits(keepalive_expiry=5.0))
    assert pool.next_expiry() is None  # nothing idle: no timer
    pool.opened()
    pool.opened()
    pool.put("a", KEY, 10.0)
    pool.put("b", KEY, 12.0)
    assert pool.next_expiry() == 15.0
    assert pool.expire(15.0) == []  # idle for exactly the expiry: kept
    assert pool.expire(15.001) == ["a"]
    assert pool.next_expiry() == 17.0
    assert pool.expire(17.001) == ["b"]
    assert pool.next_expiry() is None and pool.open == 0


def test_no_expiry_sets_no_timer() -> None:
    pool: IdlePool[str] = IdlePool(Limits(keepalive_expiry=float("inf")))
    pool.opened()
    pool.put("a", KEY, 1.0)
    assert pool.next_expiry() is None
    assert pool.expire(1e9) == []
