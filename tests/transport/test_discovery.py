"""The process's cache of ``server/discover`` answers (``_http/core/discovery.py``): its rules
with a fake clock, and sessions of ``Client`` in turn against a scripted server of 2026-07-28:
the second discovers no more, other credentials discover again, and a failed call drops the
entry."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from mcpstream import Client
from mcpstream._http.core.discovery import DISCOVERY_TTL_S, DiscoveryCache, identity
from mcpstream.errors import McpHttpTransportError

from .h1_scripted import Exchange, ScriptedServer

KEY = ("https://example.test/mcp", "2026-07-28", "id")
RESULT = {"supportedVersions": ["2026-07-28"], "serverInfo": {"name": "s", "version": "1"}}


# -- the rules, with a fake clock ---------------------------------------------------------------


def test_an_answer_is_kept_for_its_lifetime_and_copied_in_and_out() -> None:
    cache = DiscoveryCache()
    given = json.loads(json.dumps(RESULT))
    cache.put(KEY, "2026-07-28", given, now=100.0)
    given["serverInfo"]["name"] = "changed by the session that discovered"
    hit = cache.get(KEY, now=100.0 + DISCOVERY_TTL_S - 0.1)
    assert hit == ("2026-07-28", RESULT)
    hit[1]["serverInfo"]["name"] = "changed by a session that took it"
    assert cache.get(KEY, now=101.0) == ("2026-07-28", RESULT)
    assert cache.get(KEY, now=100.0 + DISCOVERY_TTL_S) is None
    assert cache.get(KEY, now=101.0) is None  # (an expired entry is gone)


def test_the_lists_of_an_answer_are_copied_too() -> None:
    cache = DiscoveryCache()
    cache.put(KEY, "2026-07-28", {"versions": ["2026-07-28"], "nested": [{"a": 1}]}, now=1.0)
    hit = cache.get(KEY, now=1.5)
    assert hit is not None
    hit[1]["versions"].append("changed")
    hit[1]["nested"][0]["a"] = 2
    assert cache.get(KEY, now=1.5) == (
        "2026-07-28",
        {"versions": ["2026-07-28"], "nested": [{"a": 1}]},
    )


def test_the_answers_ttl_shortens_the_lifetime_and_a_ttl_of_zero_is_not_kept() -> None:
    cache = DiscoveryCache()
    cache.put(KEY, "2026-07-28", {**RESULT, "ttlMs": 500}, now=0.0)
    assert cache.get(KEY, now=0.4) is not None
    assert cache.get(KEY, now=0.5) is None
    cache.put(KEY, "2026-07-28", {**RESULT, "ttlMs": 0}, now=0.0)
    assert cache.get(KEY, now=0.0) is None
    cache.put(KEY, "2026-07-28", {**RESULT, "ttlMs": 3_600_000}, now=0.0)  # capped
    assert cache.get(KEY, now=DISCOVERY_TTL_S) is None


def test_a_dropped_entry_and_a_full_cache() -> None:
    cache = DiscoveryCache(max_entries=2)
    for name in ("a", "b", "c"):
        cache.put((name, "v", "id"), "v", RESULT, now=0.0)
    assert cache.get(("a", "v", "id"), now=0.0) is None  # the oldest went
    cache.drop(("b", "v", "id"))
    assert cache.get(("b", "v", "id"), now=0.0) is None
    assert cache.get(("c", "v", "id"), now=0.0) is not None


def test_the_identity_tells_credentials_apart_and_names_without_case() -> None:
    assert identity({"Authorization": "Bearer a"}) != identity({"Authorization": "Bearer b"})
    assert identity({"Authorization": "Bearer a"}) == identity({"authorization": "Bearer a"})
    assert identity({}) != identity({"X-Tenant": "1"})
    assert "Bearer" not in identity({"Authorization": "Bearer a"})


# -- sessions in turn ---------------------------------------------------------------------------


class ModernServer:
    """Answers ``server/discover`` and ``tools/call`` as a server of 2026-07-28; records the
    methods and ``Authorization`` headers; ``fail_calls`` answers calls with a 500."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.fail_calls = False
        self.server = ScriptedServer(self._reply)

    def _reply(self, exchange: Exchange) -> None:
        message = json.loads(exchange.body)
        method = message["method"]
        headers = dict(exchange.request.headers)
        self.seen.append((method, headers.get(b"authorization", b"").decode()))
        if method == "tools/call" and self.fail_calls:
            exchange.send(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n")
            return
        result: dict[str, Any] = (
            {**RESULT, "capabilities": {"tools": {}}}
            if method == "server/discover"
            else {"content": [{"type": "text", "text": "hi"}]}
        )
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        exchange.send(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%b"
            % (len(body), body)
        )

    def discoveries(self) -> int:
        return sum(method == "server/discover" for method, _ in self.seen)


@pytest.fixture
def modern() -> Iterator[ModernServer]:
    server = ModernServer()
    yield server
    server.server.close()


def _session(server: ModernServer, **options: Any) -> Callable[[], str]:
    def run() -> str:
        with Client(f"{server.server.url}/mcp", **options) as client:
            return client.call_tool("echo", {}).text

    return run


def test_sessions_in_turn_discover_once_per_identity(modern: ModernServer) -> None:
    assert _session(modern)() == "hi"
    assert _session(modern)() == "hi"
    assert modern.discoveries() == 1
    assert _session(modern, token="one")() == "hi"  # other credentials: discovered again
    assert _session(modern, token="one")() == "hi"
    assert _session(modern, token="two")() == "hi"
    assert modern.discoveries() == 3
    assert [auth for method, auth in modern.seen if method == "server/discover"] == [
        "",
        "Bearer one",
        "Bearer two",
    ]


def test_a_failed_call_drops_the_entry(modern: ModernServer) -> None:
    assert _session(modern)() == "hi"
    modern.fail_calls = True
    with pytest.raises(McpHttpTransportError):
        _session(modern)()
    modern.fail_calls = False
    assert _session(modern)() == "hi"
    assert _session(modern)() == "hi"
    # the first, and the one after the failed session: then the cache again
    assert modern.discoveries() == 2
