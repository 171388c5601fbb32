"""``mcpstream demo`` and ``mcpstream bench``, run as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import RunCommand


def test_demo_shows_the_client_at_work(mcpstream_cli: RunCommand) -> None:
    run = mcpstream_cli("demo", "--size", "200000", "--steps", "3")
    assert run.status == 0, run.err
    for step in ("server", "handshake", "tools/list", "tools/call", "large result", "progress"):
        assert f"\u2713 {step}" in run.out
    assert "codec backend:" in run.out
    assert "add(a=2, b=3) = 5.0" in run.out
    assert "3 progress notifications streamed live" in run.out


def test_demo_json_reports_each_step_with_timings(mcpstream_cli: RunCommand) -> None:
    run = mcpstream_cli("demo", "--json", "--size", "100000", "--steps", "2")
    assert run.status == 0, run.err
    report = json.loads(run.out)
    assert report["backend"] in ("native", "python")
    assert report["server"]["protocolVersion"] == "2026-07-28"
    assert report["server"]["era"] == "modern"
    steps = {step["step"]: step for step in report["steps"]}
    assert list(steps) == [
        "server",
        "handshake",
        "tools/list",
        "tools/call",
        "large result",
        "progress",
        "ping",
    ]
    assert steps["large result"]["characters"] == 100_000
    assert steps["progress"]["notifications"] == 2
    assert all(step["ms"] > 0 for step in report["steps"])


def test_bench_quick_prints_the_table_and_draws_the_chart(
    mcpstream_cli: RunCommand, tmp_path: Path
) -> None:
    chart = tmp_path / "bench.png"
    run = mcpstream_cli("bench", "--quick", "--rounds", "1", "--plot", str(chart))
    assert run.status == 0, run.err
    for workload in ("many small", "one large", "multi-line", "CJK chunks"):
        assert workload in run.out
    assert "pure" in run.out and "MB/s" in run.out
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_bench_json_has_a_result_per_workload_and_implementation(
    mcpstream_cli: RunCommand,
) -> None:
    run = mcpstream_cli("bench", "--quick", "--rounds", "1", "--json")
    assert run.status == 0, run.err
    report = json.loads(run.out)
    implementations = {result["implementation"] for result in report["results"]}
    assert {"pure"} <= implementations
    assert len(report["results"]) == 4 * len(implementations)
    assert all(result["mbPerSecond"] > 0 for result in report["results"])


def test_bench_refuses_bad_rounds(mcpstream_cli: RunCommand) -> None:
    run = mcpstream_cli("bench", "--rounds", "0")
    assert run.status == 2
    assert run.err.strip() == "mcpstream: error: --rounds must be at least 1"


def test_demo_without_the_sdk_says_what_to_install(tmp_path: Path) -> None:
    import subprocess
    import sys

    from .conftest import PACKAGE_ROOT

    # A process in which the MCP SDK cannot be imported, as after 'pip install mcpstream'.
    script = (
        "import sys; sys.modules['mcp'] = None; "
        "from mcpstream.cli import main; sys.exit(main(['demo']))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(PACKAGE_ROOT), "PATH": "/usr/bin:/bin"},
        timeout=60,
        cwd=tmp_path,
    )
    assert completed.returncode == 1
    assert completed.stderr.strip().splitlines() == [
        "mcpstream: error: the demo server needs the official MCP SDK and uvicorn "
        "(mcp is missing): pip install 'mcpstream[demo]'"
    ]
