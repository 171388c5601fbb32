"""Clients measured side by side in one process, rounds alternating: the measuring loop of
``sdk_compare.py`` and ``frameworks_compare.py``, and their workloads against the replay server
(``replay_server.py``).

``alternate`` runs each workload once on every side (a warm-up), then ``rounds`` times, the order
rotating from round to round so that no side always runs right after the same other one, and
records each round's CPU time (``time.process_time``: every thread of the process, plus what a
side reports of the processes it drives) and wall time.
``summary`` gives two sides' medians and their ratios (theirs / ours: above 1 is faster).

``run_workload`` is what one round of a workload does over a client's ``call`` (a tool called
with no arguments, giving its result's text): ``large`` (one call, a 16 MiB text result in one
SSE event), ``large_json`` (the same as a JSON body), ``small300`` (300 small calls) and
``notifications`` (one call streaming 20,000 progress notifications before its result, counted
by ``Notified.handler`` where the client takes a message handler). Every round checks what it
received, so that a broken path cannot pass for a fast one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from replay_server import LARGE_TEXT_BYTES, NOTIFICATIONS, NOTIFICATIONS_DONE_TEXT, SMALL_TEXT

SMALL_CALLS = 300
TOOLS = {
    "large": "large",
    "large_json": "large_json",
    "small300": "small",
    "notifications": "notifications",
}
"""The replay server's tool each workload calls."""

PROGRESS = "notifications/progress"
Times = list[tuple[float, float]]
"""A side's rounds of one workload: (CPU seconds, wall seconds) each."""
Round = Callable[[str], Awaitable[float | None]]
"""A side: runs one round of the workload it is given; it may return the CPU seconds other
processes spent on it (a subprocess it drives: mcp-proxy), which count as the side's."""
Call = Callable[[str], Awaitable[str]]
"""A client's call of a replay server tool (no arguments): the text of its result."""


class Notified:
    """Counts the progress notifications a client hands its message handler."""

    def __init__(self) -> None:
        self.count = 0

    async def handler(self, message: Any) -> None:
        """A message handler: the SDK's and FastMCP's hand it the notification, or its
        ``ServerNotification`` wrapper (``root``)."""
        # By its method, not its class: the SDK's 1.x line has the types in ``mcp.types``, the
        # 2.x line in ``mcp_types``.
        if getattr(getattr(message, "root", message), "method", None) == PROGRESS:
            self.count += 1


async def run_workload(workload: str, call: Call, notified: Notified | None = None) -> None:
    """One round of ``workload`` over ``call``, checking what arrived (the notifications too,
    where ``notified`` counts them)."""
    tool = TOOLS[workload]
    if workload == "small300":
        for _ in range(SMALL_CALLS):
            assert await call(tool) == SMALL_TEXT
    elif workload == "notifications":
        if notified is not None:
            notified.count = 0
        assert await call(tool) == NOTIFICATIONS_DONE_TEXT
        if notified is not None:
            assert notified.count == NOTIFICATIONS, notified.count
    else:
        assert len(await call(tool)) == LARGE_TEXT_BYTES


def _unscoped(name: str) -> AbstractContextManager[object]:
    return nullcontext()


async def alternate(
    sides: Mapping[str, Round],
    workloads: Iterable[str],
    rounds: int,
    scope: Callable[[str], AbstractContextManager[object]] = _unscoped,
) -> dict[str, dict[str, Times]]:
    """Each workload's rounds on every side (by workload, then side name). ``scope(name)`` is
    in effect while that side runs a round; entering and leaving it is not timed."""
    names = list(sides)
    results: dict[str, dict[str, Times]] = {}
    for workload in workloads:
        times: dict[str, Times] = {name: [] for name in names}
        for name in names:  # warm-up
            with scope(name):
                await sides[name](workload)
        for index in range(rounds):
            shift = index % len(names)
            for name in names[shift:] + names[:shift]:
                with scope(name):
                    cpu, wall = time.process_time(), time.perf_counter()
                    others = await sides[name](workload)
                    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                    cpu += others or 0.0
                times[name].append((cpu, wall))
        results[workload] = times
    return results


def summary(times: Mapping[str, Times], theirs: str, ours: str) -> dict[str, Any]:
    """The medians of sides ``theirs`` and ``ours`` and their ratios (theirs / ours), with the
    rounds they come from."""
    medians = {
        name: {
            "cpu_s": statistics.median(cpu for cpu, _ in times[name]),
            "wall_s": statistics.median(wall for _, wall in times[name]),
        }
        for name in (theirs, ours)
    }
    return {
        "sides": [theirs, ours],
        "medians": medians,
        "cpu_ratio": medians[theirs]["cpu_s"] / medians[ours]["cpu_s"],
        "wall_ratio": medians[theirs]["wall_s"] / medians[ours]["wall_s"],
        "rounds": {name: times[name] for name in (theirs, ours)},
    }


def line(label: str, result: Mapping[str, Any]) -> str:
    """A summary as one printed line: CPU and wall medians of both sides, and the ratios."""
    theirs, ours = (result["medians"][name] for name in result["sides"])
    return (
        f"{label} CPU {theirs['cpu_s'] * 1e3:9.1f} ms vs {ours['cpu_s'] * 1e3:8.1f} ms "
        f"({result['cpu_ratio']:.2f}x)  wall {theirs['wall_s'] * 1e3:9.1f} ms vs "
        f"{ours['wall_s'] * 1e3:8.1f} ms ({result['wall_ratio']:.2f}x)"
    )


def parser(doc: str) -> argparse.ArgumentParser:
    """A comparison's command line: ``--rounds N`` (5 by default) and ``--json FILE`` (every
    round's figures), described by the first line of its ``doc``."""
    arguments = argparse.ArgumentParser(description=doc.splitlines()[0])
    arguments.add_argument("--rounds", type=int, default=5)
    arguments.add_argument("--json", type=Path)
    return arguments


def write_json(path: Path | None, results: Any) -> None:
    """Write ``results`` to ``path`` as JSON, where one was given."""
    if path is not None:
        path.write_text(json.dumps(results, indent=2))
