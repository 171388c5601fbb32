"""The process's cache of ``server/discover`` answers (MCP 2026-07-28): a host opening a session
per operation would otherwise send a discovery before every call.

An answer is kept (``DISCOVERED``) under everything that could change it: the server's URL, the
version asked, and the identity the request was sent with (``identity``: the configured headers,
an ``Authorization`` given as a token among them). Only a transport that made its own HTTP
client and has no auth hook uses it (``Client``/``AsyncClient`` and the transports made without
an ``http_client`` or OAuth): a host's client may add headers, cookies or auth of its own that
the key cannot see, and an OAuth token may be fetched during the discovery itself.

An entry lives ``DISCOVERY_TTL_S`` seconds at most, less when the answer's ``ttlMs`` says so,
and not at all when the answer says it may not be cached (``ttlMs`` of 0). A session that took
its discovery from the cache drops the entry when one of its requests fails or is refused for
its version (``ModernState.discovery_key``): the next session discovers again.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from . import era

__all__ = ["DISCOVERED", "DISCOVERY_TTL_S", "DiscoveryCache", "DiscoveryKey", "identity"]

DISCOVERY_TTL_S = 10.0
"""The seconds a ``server/discover`` answer is reused at most."""

DiscoveryKey = tuple[str, str, str]
"""The server's URL, the version asked, and the identity (``identity``)."""


def identity(headers: Mapping[str, str]) -> str:
    """A digest of the headers a transport sends with every request (names without case):
    answers to different credentials never share an entry, and no secret is kept in the
    key."""
    canonical = json.dumps(sorted((name.lower(), value) for name, value in headers.items()))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _copied(value: Any) -> Any:
    """A deep copy of ``value``, a JSON document (dicts and lists copied, their other values,
    immutable, shared): what ``copy.deepcopy`` gives, at a fraction of its cost (a session
    per call copies the answer out each time). Anything else is ``copy.deepcopy``'s."""
    kind = type(value)
    if kind is dict:
        return {name: _copied(item) for name, item in value.items()}
    if kind is list:
        return [_copied(item) for item in value]
    if kind in _IMMUTABLE:
        return value
    return copy.deepcopy(value)


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


class DiscoveryCache:
    """``server/discover`` answers by ``DiscoveryKey``, each until it expires. Bounded
    (``max_entries``, the oldest dropped); safe to share between threads. Answers are copied in
    and out: a session may change what it was given."""

    def __init__(self, max_entries: int = 256) -> None:
        self._entries: OrderedDict[DiscoveryKey, tuple[float, str, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    def get(self, key: DiscoveryKey, now: float) -> tuple[str, dict[str, Any]] | None:
        """The version spoken and the answer kept for ``key`` (``now``: ``time.monotonic``),
        or None (none, or expired)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] <= now:
                del self._entries[key]
                return None
        return entry[1], _copied(entry[2])

    def put(self, key: DiscoveryKey, version: str, result: dict[str, Any], now: float) -> None:
        """Keep ``result`` (the version spoken after it: ``version``) for ``key``, unless its
        ``ttlMs`` says it may not be cached."""
        ttl_s = DISCOVERY_TTL_S
        if "ttlMs" in result:
            hint = era.cache_hint(result)
            if hint is None:
                return
            ttl_s = min(ttl_s, hint[0])
        kept = _copied(result)
        with self._lock:
            self._entries[key] = (now + ttl_s, version, kept)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def drop(self, key: DiscoveryKey) -> None:
        """Forget the answer for ``key`` (a session that used it failed or was refused)."""
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._entries.clear()


DISCOVERED = DiscoveryCache()
"""The process's cache of ``server/discover`` answers (see ``DiscoveryCache``)."""
