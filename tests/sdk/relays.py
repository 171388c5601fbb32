"""``relays``: a count of the connections ``mcpstream.sdk.streamable_http_client`` opened during a
test (one ``SessionRelay`` each), which is how a test knows a host or a framework really ran over
mcpstream. Shared by the SDK suites and the framework peers (on either SDK line: nothing here
needs more than mcpstream.sdk)."""

from __future__ import annotations

from typing import Any

import mcpstream.sdk.client
import pytest
from mcpstream.sdk.streams import SessionRelay

__all__ = ["Relays", "relays"]


class Relays:
    """Counts the ``SessionRelay`` objects mcpstream's SDK transport makes: one a connection
    (``made``; ``each``: the relays themselves, in order)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made = 0
        self.each: list[SessionRelay] = []
        counter = self

        class CountingRelay(SessionRelay):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                counter.made += 1
                super().__init__(*args, **kwargs)
                counter.each.append(self)

        monkeypatch.setattr(mcpstream.sdk.client, "SessionRelay", CountingRelay)


@pytest.fixture
def relays(monkeypatch: pytest.MonkeyPatch) -> Relays:
    """A count of mcpstream's SDK transports opened during the test."""
    return Relays(monkeypatch)
