"""Every client front end against the MCP servers of the other SDKs (``conftest.py``), in each
era: pinned to the handshake (``legacy``) and negotiated (``auto``, which reaches 2026-07-28
where the server speaks it).

Each front end must reach the protocol version the official Python client (``mcp.Client`` over
the SDK's own transport) reaches against the same server in the same era, and pass every step
of the peer's scenario (``scenario.py``) with the expected observation. A step the official
client fails too is a quirk of that server: it is listed in ``QUIRKS`` with its reason, and the
test asserts that it fails for both (never skipped). A deadline test checks that a call with a
1.5 s timeout to a tool that sends progress and answers after 3 s raises in time."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import MCPError
from mcpstream.errors import McpTimeoutError

from .conftest import Peer
from .frontends import FRONT_ENDS, connect
from .scenario import PROFILES, Outcome, passed, run_scenario

BOUND_S = 120.0
ERAS = ("legacy", "auto")
TIMEOUT_S = 1.5
DELAY_S = 3.0
# The margin of a deadline: scheduling on a loaded machine (the suite runs beside other work).
MARGIN_S = 1.0


@dataclass(frozen=True)
class Quirk:
    """A step the official client fails on a server: ``why``, and the front ends that pass it
    all the same (by another route, as ``Client`` subscribes with ``subscriptions/listen``
    at 2026-07-28 where ``mcp.Client`` sends the removed ``resources/subscribe``); the others
    must fail it too."""

    why: str
    passing: frozenset[str] = frozenset()


OWN_ROUTE = frozenset({"client", "async-client", "transport", "async-transport"})
"""The front ends with a 2026-07-28 route of their own for subscriptions (``subscriptions/listen``)
and the log level (``_meta``)."""

REMOVED_AT_2026 = Quirk(
    "mcp.Client sends the requests removed at 2026-07-28 (resources/subscribe, "
    "logging/setLevel): the server refuses them (so it does with mcp.Client over mcpstream.sdk, "
    "which relays them)",
    passing=OWN_ROUTE,
)
RMCP_COMPLETION = Quirk(
    "rmcp answers completion/complete at 2026-07-28 without resultType, which mcp.Client "
    "(over either transport) refuses; mcpstream reads an absent one as complete, as the spec says",
    passing=OWN_ROUTE,
)
STATELESS_HANDSHAKE = Quirk(
    "a stateless server of the handshake era has no session, so no GET stream to send an "
    "update on and no way to send a request to the client: the Go SDK refuses"
)

QUIRKS: dict[tuple[str, str, str], Quirk] = {
    **{
        ("go-stateless", "2025-11-25", step): STATELESS_HANDSHAKE
        for step in ("subscribe and update", "sampling", "elicitation", "roots")
    },
    **{
        (peer, "2026-07-28", step): REMOVED_AT_2026
        for peer in ("ts", "go-stateless")
        for step in ("subscribe and update", "logging")
    },
    # rmcp still serves logging/setLevel at 2026-07-28.
    ("rust", "2026-07-28", "subscribe and update"): REMOVED_AT_2026,
    ("rust", "2026-07-28", "completion"): RMCP_COMPLETION,
}
"""(peer, protocol version reached, step) -> the quirk."""


def run(coroutine: Any, bound_s: float = BOUND_S) -> Any:
    """Run ``coroutine`` on an event loop of its own; fail the test past ``bound_s``."""

    async def bounded() -> Any:
        async with asyncio.timeout(bound_s):
            return await coroutine

    return asyncio.run(bounded())


async def _scenario(
    kind: str, peer: Peer, era: str, workdir: Path
) -> tuple[str, dict[str, Outcome]]:
    async with connect(kind, peer.url, era, workdir) as front:
        return front.protocol_version, await run_scenario(front, PROFILES[peer.name])


_references: dict[tuple[str, str], tuple[str, dict[str, Outcome]]] = {}


def reference(peer: Peer, era: str, workdir: Path) -> tuple[str, dict[str, Outcome]]:
    """The official client's version and outcomes on ``peer`` in ``era`` (once a worker)."""
    key = (peer.name, era)
    if key not in _references:
        _references[key] = run(_scenario("reference", peer, era, workdir))
    return _references[key]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_each_front_end_passes_the_peer_scenario(
    peer: Peer, era: str, front_end: str, tmp_path: Path
) -> None:
    ref_version, ref_outcomes = reference(peer, era, tmp_path)
    version, outcomes = run(_scenario(front_end, peer, era, tmp_path))
    assert version == ref_version, f"{front_end} reached {version}, mcp.Client {ref_version}"
    expected = PROFILES[peer.name].expected
    failures = []
    for step, outcome in outcomes.items():
        ref, want = ref_outcomes[step], expected[step]
        quirk = QUIRKS.get((peer.name, version, step))
        if quirk is not None:
            # A quirk of the server: the official client fails this step, and so does ours
            # unless this front end is one that passes it by another route.
            if passed(step, want, ref):
                failures.append(f"{step}: quirk ({quirk.why}) gone: mcp.Client got {ref}")
            if front_end not in quirk.passing:
                if passed(step, want, outcome):
                    failures.append(f"{step}: quirk ({quirk.why}): {front_end} passed it")
                continue
        elif not passed(step, want, ref):
            failures.append(f"{step}: mcp.Client got {ref} (a new server quirk?)")
        if not passed(step, want, outcome):
            failures.append(f"{step}: {front_end} got {outcome}, expected {want!r}")
    assert not failures, f"{peer.name} ({era}, {version}), log {peer.log}:\n" + "\n".join(failures)


def _slow_call(peer: Peer) -> tuple[str, dict[str, Any]]:
    if peer.name == "everything":
        # Progress after 1 s and 2 s, the answer after 3 s.
        return "trigger-long-running-operation", {"duration": DELAY_S, "steps": 3}
    # Silence for 1 s, a progress notification, the answer 2 s later: a driver that stamps the
    # notification with the clock read before its blocking read waits 1 s too long.
    return "slow", {"first_s": 1.0, "delay_s": DELAY_S}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_call_raises_at_its_deadline_after_progress(
    peer: Peer, front_end: str, tmp_path: Path
) -> None:
    name, arguments = _slow_call(peer)

    async def main() -> tuple[BaseException | None, float, list[float]]:
        async with connect(front_end, peer.url, "auto", tmp_path) as front:
            seen: list[float] = []
            start = time.monotonic()
            try:
                await front.call(name, arguments, progress=seen, timeout_s=TIMEOUT_S)
            except Exception as exc:  # asserted below
                return exc, time.monotonic() - start, seen
            return None, time.monotonic() - start, seen

    error, elapsed, seen = run(main())
    assert error is not None, f"the call returned after {elapsed:.2f} s instead of raising"
    expected = MCPError if front_end == "sdk-over-mcpstream" else McpTimeoutError
    assert isinstance(error, expected), repr(error)
    assert TIMEOUT_S - 0.05 <= elapsed <= TIMEOUT_S + MARGIN_S, f"raised after {elapsed:.2f} s"
    assert seen, "no progress arrived before the deadline"
