"""The soak's own logic, free of I/O so that ``tests/test_soak_logic.py`` can check it: the
forced-reopen detector, the growth per 1,000 calls, the baseline checks and the verdict.

``benches/soak.py`` runs the soak; ``benches/soak_worker.py`` drives one front end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

GROWTH_LIMIT_KIB = 128.0
"""The growth target: RSS and traced memory per 1,000 calls after warm-up, in KiB (or the SDK's
own figure in the same run, whichever is larger)."""
GROWTH_MIN_CALLS = 5_000
"""Calls after warm-up below which a growth figure is shown but not judged."""
REFERENCE = "reference"
"""The anchor: ``mcp.Client`` over the SDK's own ``streamable_http_client``."""
LEVELS = ("fds", "threads", "tasks")


class ReopenDetector:
    """Tells when a client has to be thrown away: ``calls`` failures in a row, or failures in
    a row for ``seconds``, each of a call that started while the server was up (a failure of a
    call the server's death or restart overlapped breaks the streak: it says nothing of the
    client). Any success also breaks it."""

    def __init__(self, calls: int = 10, seconds: float = 10.0) -> None:
        self.calls = calls
        self.seconds = seconds
        self._streak = 0
        self._first_at = 0.0

    @property
    def streak(self) -> int:
        """Failures in a row counted so far."""
        return self._streak

    def success(self) -> None:
        """A call succeeded."""
        self._streak = 0

    def failure(self, started: float, ended: float, server_up_since: float | None) -> bool:
        """A call that ran from ``started`` to ``ended`` failed; ``server_up_since``: when the
        server last came up (None: it is down). True: a forced reopen (the streak restarts)."""
        if server_up_since is None or server_up_since > started:
            self._streak = 0
            return False
        if self._streak == 0:
            self._first_at = started
        self._streak += 1
        forced = self._streak >= self.calls or (
            self._streak >= 2 and ended - self._first_at >= self.seconds
        )
        if forced:
            self._streak = 0
        return forced


def growth_per_1000(points: Sequence[tuple[float, float]]) -> float | None:
    """The least-squares slope of ``value`` over ``calls`` for ``(calls, value)`` points, per
    1,000 calls (None: fewer than two distinct call counts). A slope, not last minus first, so
    that one sample taken mid-garbage-collection does not make the figure."""
    if len({calls for calls, _ in points}) < 2:
        return None
    n = len(points)
    mean_x = sum(calls for calls, _ in points) / n
    mean_y = sum(value for _, value in points) / n
    covariance = sum((calls - mean_x) * (value - mean_y) for calls, value in points)
    variance = sum((calls - mean_x) ** 2 for calls, _ in points)
    return covariance / variance * 1000.0


@dataclass
class Levels:
    """Open fds, OS threads and asyncio tasks (None: not an asyncio front end)."""

    fds: int
    threads: int
    tasks: int | None

    def get(self, name: str) -> int | None:
        """The level ``name`` (one of ``LEVELS``)."""
        value: int | None = getattr(self, name)
        return value


def above(end: Levels, baseline: Levels) -> list[str]:
    """The levels of ``end`` above those of ``baseline`` (``"tasks 3>1"``)."""
    found = []
    for name in LEVELS:
        now, then = end.get(name), baseline.get(name)
        if now is not None and then is not None and now > then:
            found.append(f"{name} {now}>{then}")
    return found


@dataclass
class Sample:
    """One sample of a worker, taken between two calls."""

    at: float
    calls: int
    rss_kib: float
    traced_kib: float
    levels: Levels | None
    """None: not measured in this sample (see ``soak_worker.LEVELS_EVERY``)."""
    healthy: bool
    """The last call succeeded (the client is open and in use, not mid-recovery)."""


def open_levels(
    samples: Sequence[Sample], start: float, window: float, last: bool
) -> Levels | None:
    """The open client's levels over a window of healthy samples taken from ``start`` on: the
    highest of each over the first ``window`` seconds of them (the baseline), or the lowest over
    the last ``window`` seconds (``last``: the end). Highest against lowest, so that a
    connection or task that comes and goes between calls is no leak, while one more kept per
    renewal is."""
    measured = [
        sample
        for sample in samples
        if sample.healthy and sample.at >= start and sample.levels is not None
    ]
    # the window from the first healthy sample on, or back from the last
    if last and measured:
        measured = [sample for sample in measured if sample.at >= measured[-1].at - window]
    elif measured:
        measured = [sample for sample in measured if sample.at < measured[0].at + window]
    healthy = [sample.levels for sample in measured if sample.levels is not None]
    if not healthy:
        return None
    pick = min if last else max
    tasks = [levels.tasks for levels in healthy if levels.tasks is not None]
    return Levels(
        fds=pick(levels.fds for levels in healthy),
        threads=pick(levels.threads for levels in healthy),
        tasks=pick(tasks) if tasks else None,
    )


@dataclass
class Result:
    """What one front end did in one era over the soak."""

    front: str
    era: str
    calls: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    forced_reopens: int = 0
    sessions_ended: int = 0
    """Sessions of ``mcp.Client`` that ended on a connection error and were opened again, as
    documented (no failure of the soak)."""
    hangs: int = 0
    warm_calls: int = 0
    """Calls after warm-up."""
    rss_growth: float | None = None
    traced_growth: float | None = None
    baseline: Levels | None = None
    end: Levels | None = None
    close_leaks: list[str] = field(default_factory=list)
    """Levels found above the closed baseline after a close (``"fds 12>11"``)."""
    note: str = ""


def summarize(
    front: str,
    era: str,
    done: dict[str, Any],
    samples: Sequence[Sample],
    warmup: float,
    window: float,
) -> Result:
    """The result of one worker from its final report (``done``) and samples."""
    result = Result(front=front, era=era)
    result.calls = int(done.get("calls", 0))
    result.errors = dict(done.get("errors", {}))
    result.forced_reopens = int(done.get("forced_reopens", 0))
    result.sessions_ended = int(done.get("sessions_ended", 0))
    result.hangs = int(done.get("hangs", 0))
    result.close_leaks = list(done.get("close_leaks", []))
    result.note = str(done.get("note", ""))
    warm = [sample for sample in samples if sample.at >= warmup]
    if warm:
        result.warm_calls = warm[-1].calls - warm[0].calls
        result.rss_growth = growth_per_1000([(s.calls, s.rss_kib) for s in warm])
        result.traced_growth = growth_per_1000([(s.calls, s.traced_kib) for s in warm])
    result.baseline = open_levels(samples, warmup, window, last=False)
    result.end = open_levels(samples, warmup, window, last=True)
    return result


def growth_limit(results: Sequence[Result], era: str, key: str) -> float:
    """The growth allowed in ``era`` for ``key`` (``rss_growth``, ``traced_growth``): 128 KiB
    per 1,000 calls or the reference's own figure, whichever is larger."""
    for result in results:
        if result.front == REFERENCE and result.era == era:
            figure: float | None = getattr(result, key)
            if figure is not None:
                return max(GROWTH_LIMIT_KIB, figure)
    return GROWTH_LIMIT_KIB


def failures(results: Sequence[Result], ci: bool) -> list[str]:
    """What fails the soak (empty: it passed). Every front end but the reference: a forced
    reopen, a hang, fds/threads/tasks above the baseline at the end or after a close; outside
    ``ci``, growth above the limit too, once over ``GROWTH_MIN_CALLS`` calls after warm-up."""
    found = []
    for result in results:
        if result.front == REFERENCE:
            continue
        name = f"{result.front} {result.era}"
        if result.note:
            found.append(f"{name}: {result.note}")
        if result.forced_reopens:
            found.append(f"{name}: {result.forced_reopens} forced reopen(s)")
        if result.hangs:
            found.append(f"{name}: {result.hangs} hang(s)")
        if result.baseline is None or result.end is None:
            found.append(f"{name}: no healthy samples to compare with the baseline")
        else:
            found.extend(f"{name}: open {level}" for level in above(result.end, result.baseline))
        for level, times in Counter(result.close_leaks).items():
            found.append(
                f"{name}: after close {level}" + (f" ({times} times)" if times > 1 else "")
            )
        if ci or result.warm_calls < GROWTH_MIN_CALLS:
            continue
        for key, label in (("rss_growth", "RSS"), ("traced_growth", "traced memory")):
            figure = getattr(result, key)
            limit = growth_limit(results, result.era, key)
            if figure is not None and figure > limit:
                found.append(f"{name}: {label} +{figure:.0f} KiB per 1,000 calls > {limit:.0f}")
    return found


def _kib(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1f}"


def _levels(baseline: Levels | None, end: Levels | None, name: str) -> str:
    then = None if baseline is None else baseline.get(name)
    now = None if end is None else end.get(name)
    if then is None and now is None:
        return "-"
    return f"{'-' if then is None else then} → {'-' if now is None else now}"


def table(results: Sequence[Result]) -> str:
    """The results as a Markdown table (printed, and written by ``--markdown``)."""
    lines = [
        "| front end | era | calls | errors by class | forced reopens | sessions ended | hangs "
        "| RSS KiB / 1k calls | traced KiB / 1k calls | fds | threads | tasks |",
        "|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in results:
        errors = ", ".join(f"{name} {count}" for name, count in sorted(r.errors.items())) or "0"
        lines.append(
            f"| {r.front} | {r.era} | {r.calls:,} | {errors} | {r.forced_reopens} "
            f"| {r.sessions_ended} | {r.hangs} "
            f"| {_kib(r.rss_growth)} | {_kib(r.traced_growth)} | "
            + " | ".join(_levels(r.baseline, r.end, name) for name in LEVELS)
            + " |"
        )
    return "\n".join(lines)
