"""The soak's own logic (``benches/soak_logic.py``): when a client counts as thrown away (a
forced reopen), the growth per 1,000 calls, the baseline of the open client's levels, the
verdict, and ``--markdown`` writing its block of the benchmarks page."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load(name: str) -> ModuleType:
    # the soak's modules import each other by name, as scripts of benches/
    sys.path.insert(0, str(ROOT / "benches"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benches" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "benches"))


logic = load("soak_logic")


def test_ten_failures_in_a_row_with_the_server_up_force_a_reopen() -> None:
    detector = logic.ReopenDetector(calls=10, seconds=10.0)
    verdicts = [detector.failure(100.0 + i * 0.1, 100.05 + i * 0.1, 50.0) for i in range(10)]
    assert verdicts == [False] * 9 + [True]
    assert detector.streak == 0  # counted once: the next streak starts afresh


def test_failures_for_ten_seconds_force_a_reopen_before_ten_calls() -> None:
    detector = logic.ReopenDetector(calls=10, seconds=10.0)
    assert not detector.failure(100.0, 105.0, 50.0)
    assert not detector.failure(105.0, 109.0, 50.0)
    assert detector.failure(109.0, 110.5, 50.0)


def test_a_success_breaks_the_streak() -> None:
    detector = logic.ReopenDetector(calls=3, seconds=100.0)
    assert not detector.failure(1.0, 1.1, 0.0)
    assert not detector.failure(2.0, 2.1, 0.0)
    detector.success()
    assert not detector.failure(3.0, 3.1, 0.0)
    assert not detector.failure(4.0, 4.1, 0.0)
    assert detector.failure(5.0, 5.1, 0.0)


def test_failures_while_the_server_is_down_or_restarted_count_for_nothing() -> None:
    detector = logic.ReopenDetector(calls=3, seconds=100.0)
    assert not detector.failure(1.0, 1.1, 0.0)
    assert not detector.failure(2.0, 2.1, 0.0)
    # down: the streak starts again
    assert not detector.failure(3.0, 3.1, None)
    assert detector.streak == 0
    # the server came up after the call began: its failure says nothing of the client
    assert not detector.failure(4.0, 4.5, 4.2)
    assert detector.streak == 0
    for at in (5.0, 6.0):
        assert not detector.failure(at, at + 0.1, 4.2)
    assert detector.failure(7.0, 7.1, 4.2)


def test_growth_is_the_slope_per_1000_calls() -> None:
    points = [(calls, 1000.0 + calls * 0.5) for calls in range(0, 5000, 250)]
    assert logic.growth_per_1000(points) == pytest.approx(500.0)
    flat = [(calls, 2048.0) for calls in range(0, 5000, 250)]
    assert logic.growth_per_1000(flat) == pytest.approx(0.0)


def test_one_outlier_sample_does_not_make_the_growth() -> None:
    points = [(calls, 1000.0) for calls in range(0, 10_000, 100)]
    points[-1] = (9_900, 1300.0)  # the last sample taken mid-collection
    growth = logic.growth_per_1000(points)
    assert growth is not None
    assert 0.0 < growth < 300.0 / 9.9  # last minus first per 1,000 calls would be 30.3


def test_growth_needs_two_call_counts() -> None:
    assert logic.growth_per_1000([]) is None
    assert logic.growth_per_1000([(10, 1.0), (10, 2.0)]) is None


def sample(at: float, fds: int, tasks: int | None, healthy: bool = True) -> object:
    levels = logic.Levels(fds=fds, threads=2, tasks=tasks)
    return logic.Sample(
        at=at, calls=int(at * 4), rss_kib=0.0, traced_kib=0.0, levels=levels, healthy=healthy
    )


def test_the_baseline_is_the_highest_at_first_and_the_end_the_lowest_at_last() -> None:
    samples = [sample(at, fds=8 + at % 2, tasks=1 + at % 2) for at in range(0, 60)]
    baseline = logic.open_levels(samples, start=10.0, window=8.0, last=False)
    end = logic.open_levels(samples, start=10.0, window=8.0, last=True)
    assert (baseline.fds, baseline.tasks) == (9, 2)
    assert (end.fds, end.tasks) == (8, 1)
    assert logic.above(end, baseline) == []


def test_a_task_kept_per_renewal_is_above_the_baseline() -> None:
    # one more task at each renewal (every 20 s), as retired GET-stream tasks kept would be
    samples = [sample(at, fds=8, tasks=1 + at // 20) for at in range(0, 120)]
    baseline = logic.open_levels(samples, start=10.0, window=8.0, last=False)
    end = logic.open_levels(samples, start=10.0, window=8.0, last=True)
    assert logic.above(end, baseline) == ["tasks 6>1"]


def test_unhealthy_samples_are_left_out_of_the_levels() -> None:
    samples = [sample(at, fds=8, tasks=1) for at in range(0, 30)]
    samples += [sample(at, fds=30, tasks=9, healthy=False) for at in range(30, 40)]
    end = logic.open_levels(samples, start=10.0, window=8.0, last=True)
    assert (end.fds, end.tasks) == (8, 1)
    assert logic.open_levels(samples[30:], start=10.0, window=8.0, last=True) is None


def test_the_baseline_window_starts_at_the_first_healthy_sample() -> None:
    # failing from 10 s to 30 s (a server restart): the baseline is taken once calls succeed
    samples = [sample(at, fds=8, tasks=1, healthy=not 10 <= at < 30) for at in range(0, 60)]
    samples[31] = sample(31, fds=11, tasks=1)
    baseline = logic.open_levels(samples, start=10.0, window=8.0, last=False)
    assert baseline is not None and baseline.fds == 11
    # the end is the lowest of the last window: at rest, 8
    end = logic.open_levels(samples, start=10.0, window=8.0, last=True)
    assert end is not None and end.fds == 8


def result(front: str, **fields: object) -> object:
    levels = logic.Levels(fds=8, threads=2, tasks=1)
    values = {"baseline": levels, "end": levels, "warm_calls": 6000, **fields}
    return logic.Result(front=front, era="2025-11-25", **values)


def test_the_verdict_fails_on_a_reopen_a_hang_and_a_level_but_not_for_the_reference() -> None:
    higher = logic.Levels(fds=8, threads=2, tasks=4)
    results = [
        result("client", forced_reopens=2),
        result("async-transport", end=higher),
        result("transport", hangs=1, close_leaks=["fds 10>9"]),
        result("reference", forced_reopens=5, hangs=1),
    ]
    assert logic.failures(results, ci=True) == [
        "client 2025-11-25: 2 forced reopen(s)",
        "async-transport 2025-11-25: open tasks 4>1",
        "transport 2025-11-25: 1 hang(s)",
        "transport 2025-11-25: after close fds 10>9",
    ]
    assert logic.failures([result("client")], ci=True) == []
    # an mcp.Client session ended by a connection error and opened again is no failure
    assert logic.failures([result("sdk-over-mcpstream", sessions_ended=4)], ci=True) == []


def test_growth_fails_outside_ci_above_the_larger_of_the_limit_and_the_reference() -> None:
    results = [
        result("client", rss_growth=150.0, traced_growth=10.0),
        result("async-client", rss_growth=250.0, traced_growth=10.0),
        result("transport", rss_growth=900.0, warm_calls=4000),  # too few calls to judge
        result("reference", rss_growth=200.0, traced_growth=5.0),
    ]
    assert logic.failures(results, ci=True) == []
    assert logic.failures(results, ci=False) == [
        "async-client 2025-11-25: RSS +250 KiB per 1,000 calls > 200"
    ]


def test_the_table_has_a_row_per_front_end_with_errors_by_class() -> None:
    rows = logic.table(
        [result("client", calls=1234, errors={"McpTimeoutError": 3, "B": 1}, rss_growth=1.5)]
    ).splitlines()
    assert len(rows) == 3
    assert rows[2].startswith(
        "| client | 2025-11-25 | 1,234 | B 1, McpTimeoutError 3 | 0 | 0 | 0 |"
    )
    assert "+1.5" in rows[2]
    assert "8 → 8" in rows[2]


def test_markdown_writes_the_soak_block_of_the_benchmarks_page(tmp_path: Path) -> None:
    soak = load("soak")
    page = tmp_path / "benchmarks.md"
    page.write_text("# Page\n\nprose\n<!-- soak:table -->\nold\n<!-- /soak:table -->\nafter\n")
    soak.write_markdown(page, "| new |")
    assert page.read_text() == (
        "# Page\n\nprose\n<!-- soak:table -->\n| new |\n<!-- /soak:table -->\nafter\n"
    )
    blocks = (ROOT / "docs" / "benchmarks.md").read_text()
    assert "<!-- soak:table -->" in blocks and "<!-- /soak:table -->" in blocks


def test_the_command_line_refuses_an_unknown_front_end() -> None:
    soak = load("soak")
    args = soak.parse(["--minutes", "30", "--fronts", "client,async-client"])
    assert (args.minutes, args.fronts, args.ci) == (30.0, ["client", "async-client"], False)
    with pytest.raises(SystemExit):
        soak.parse(["--fronts", "client,telnet"])
