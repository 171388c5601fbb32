"""``mcpstream bench``: the codec benchmark, side by side, on built-in workloads."""

from __future__ import annotations

import argparse
import platform
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .._version import __version__
from ..benchmark import (
    Implementation,
    Measurement,
    available_implementations,
    builtin_workloads,
    measure,
)
from ..benchmark.plot import PlotUnavailableError, check_plot_available, plot
from ._common import EXIT_ERROR, EXIT_OK, UsageError, add_command, fail
from ._output import err_console, out_console, print_json

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``bench`` command."""
    summary = "benchmark the codec: native, pure Python and httpx-sse side by side"
    bench = add_command(subparsers, "bench", run_bench, summary, json_output=True)
    bench.add_argument("--quick", action="store_true", help="small workloads, few rounds")
    bench.add_argument("--rounds", type=int, help="timed rounds per measurement (default: 7)")
    bench.add_argument("--plot", type=Path, metavar="FILE.png", help="save a chart (matplotlib)")


def _baseline(keys: list[str]) -> str:
    return "httpx_sse" if "httpx_sse" in keys else "pure"


def _table(results: list[Measurement], implementations: list[Implementation], rounds: int) -> Table:
    keys = [implementation.key for implementation in implementations]
    short = {implementation.key: implementation.short for implementation in implementations}
    labels = {implementation.key: implementation.label for implementation in implementations}
    baseline = _baseline(keys)
    table = Table(
        title=f"MB/s, median of {rounds} rounds; speed-up over {labels[baseline]}",
        title_justify="left",
    )
    table.add_column("workload")
    table.add_column("MB", justify="right")
    for key in keys:
        table.add_column(short[key], justify="right")
    others = [key for key in keys if key != baseline]
    for key in others:
        table.add_column(f"{short[key]} \u00d7", justify="right")
    by_key = {(r.workload, r.implementation): r for r in results}
    for workload in dict.fromkeys(r.workload for r in results):
        rates = {key: by_key[(workload, key)].mb_per_s for key in keys}
        row = [workload, f"{by_key[(workload, keys[0])].size / 1e6:.1f}"]
        row += [f"{rates[key]:,.0f}" for key in keys]
        row += [f"{rates[key] / rates[baseline]:.1f}" for key in others]
        table.add_row(*row)
    return table


def run_bench(args: argparse.Namespace) -> int:
    """Decode SSE bodies shaped like MCP traffic with the native codec, the pure-Python codec
    and, when httpx-sse is installed, httpx-sse + json.loads (the official SDK's stack).
    Throughput is bytes over the median time of the rounds."""
    rounds = args.rounds if args.rounds is not None else (3 if args.quick else 7)
    if rounds < 1:
        raise UsageError("--rounds must be at least 1")
    if args.plot is not None:
        try:
            check_plot_available()
        except PlotUnavailableError as exc:
            return fail(str(exc), EXIT_ERROR)
    implementations, missing = available_implementations()
    workloads = builtin_workloads(quick=args.quick)
    results: list[Measurement] = []
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console(),
        transient=True,
        disable=not err_console().is_terminal,
    )
    with progress:
        task = progress.add_task("benchmark", total=len(workloads) * len(implementations) * rounds)
        for workload in workloads:
            for implementation in implementations:
                progress.update(task, description=f"{workload.name}: {implementation.label}")
                results.append(
                    measure(
                        workload,
                        implementation,
                        rounds=rounds,
                        on_round=lambda: progress.advance(task),
                    )
                )
    if args.json:
        print_json(
            {
                "rounds": rounds,
                "quick": args.quick,
                "missing": missing,
                "results": [
                    {
                        "workload": r.workload,
                        "implementation": r.implementation,
                        "bytes": r.size,
                        "medianSeconds": r.median_s,
                        "mbPerSecond": r.mb_per_s,
                    }
                    for r in results
                ],
            }
        )
    else:
        console = out_console()
        console.print(_table(results, implementations, rounds))
        for note in missing:
            console.print(f"[dim]not measured: {note}[/]")
    if args.plot is not None:
        python = f"{platform.python_implementation()} {platform.python_version()}"
        title = f"mcpstream {__version__} codec throughput ({python})"
        plot(results, implementations, args.plot, title)
        if not args.json:
            out_console().print(f"chart saved to {args.plot}")
    return EXIT_OK
