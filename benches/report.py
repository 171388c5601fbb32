"""Run the benchmarks and print the tables of docs/benchmarks.md: ``python benches/report.py``.

Every implementation is measured in the same pytest-benchmark run, so every ratio compares
implementations measured side by side on the same machine at the same time. Throughput is bytes
(or calls) / median time. Pass ``--json FILE...`` to report on saved runs instead of running
again, ``--suite codec`` or ``--suite transport`` to run (and print) only the codec or only the
transport benchmarks, and ``--repeat N`` to run the suite N times and report, for each
benchmark, the median over the runs of its median time (``--save DIR`` keeps each run's JSON).
``--markdown docs/benchmarks.md`` also writes each table into its block of the benchmarks page
(between ``<!-- report:NAME -->`` and ``<!-- /report:NAME -->``), leaving the prose as it is,
and then the figures the other pages quote (``README.md``, ``docs/httpx2.md``, ``docs/sdk.md``,
between ``<!-- figures:NAME -->`` and ``<!-- /figures:NAME -->``), derived from the tables of
the benchmarks page: the figures live once, there (``--quote`` alone rewrites the quotes).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCHES = Path(__file__).resolve().parent
IMPLEMENTATIONS = ("native", "native_basic", "pure", "pure_basic", "httpx_sse", "orjson_floor")
PARSERS = ("native", "pure", "json_loads", "orjson")


SUITES = {
    "all": [BENCHES],
    "codec": sorted(BENCHES.glob("test_codec_*.py")),
    "transport": [BENCHES / "test_transport_throughput.py"],
}
TRANSPORT_CLIENTS = (
    ("sync_native", "sync, native"),
    ("sync_pure", "sync, pure"),
    ("async_native", "async, native"),
    ("async_pure", "async, pure"),
    ("sdk", "`mcp` SDK client"),
    ("sync_httpx2_native", "sync, native, host httpx2"),
    ("async_httpx2_native", "async, native, host httpx2"),
    ("sync_own_httpx2_native", "sync, native, own httpx2"),
    ("async_own_httpx2_native", "async, native, own httpx2"),
)
TRANSPORT_FLOORS = (
    ("httpx", "bare httpx + orjson"),
    ("httpx2", "bare httpx2 + orjson"),
    ("socket", "bare socket + orjson"),
)
"""Bare clients beside the transport table (the large result only): the body read whole and
its one event parsed by ``orjson``, with no SSE parsing, no streaming and no limits."""
TRANSPORT_WORKLOADS = (
    ("large", "16 MiB tool result", "MB/s", 5.0),
    ("notifications", "20,000 notifications + result", "MB/s", 30.0),
    ("small", "1,000 small calls, SSE", "calls/s", 1.0),
    ("small_json", "1,000 small calls, JSON", "calls/s", 1.0),
)
"""(workload, label, unit, target ratio of native mcpstream to the SDK client)."""


def run_benchmarks(json_path: Path, suite: str = "all") -> None:
    """Run the benchmarks of ``suite`` and save pytest-benchmark's JSON to ``json_path``."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *(str(path) for path in SUITES[suite]),
            "--benchmark-only",
            f"--benchmark-json={json_path}",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        check=True,
        cwd=BENCHES,
    )


def _mb_per_s(bench: dict[str, Any]) -> float:
    return float(bench["extra_info"]["bytes"]) / bench["stats"]["median"] / 1e6


def _rate_table(
    by_group: dict[str, dict[str, float]],
    header: str,
    names: tuple[str, ...],
    ratios: list[tuple[str, str]],
) -> str:
    """A markdown table: one row per group, the MB/s of each of ``names``, then each ratio."""
    rows = [header, "|---|" + "---:|" * (len(names) + len(ratios))]
    for group in sorted(by_group):
        r = by_group[group]
        cells = [_mb(r.get(name)) for name in names] + [
            _ratio(r.get(a), r.get(b)) for a, b in ratios
        ]
        rows.append(f"| {group} | {' | '.join(cells)} |")
    return "\n".join(rows)


def throughput_table(benchmarks: list[dict[str, Any]]) -> str:
    """Markdown table of MB/s per workload and implementation, with the target ratios."""
    by_group: dict[str, dict[str, float]] = {}
    for bench in benchmarks:
        name = bench["name"].split("[")[0].removeprefix("test_")
        if name in IMPLEMENTATIONS and not bench["group"].startswith(("linearity", "peak")):
            by_group.setdefault(bench["group"], {})[name] = _mb_per_s(bench)
    header = (
        "| workload | native MB/s | native basic MB/s | pure MB/s | pure basic MB/s"
        " | httpx-sse + json.loads MB/s | orjson floor MB/s | native / floor"
        " | native / httpx-sse | native basic / httpx-sse | pure / httpx-sse"
        " | pure basic / httpx-sse |"
    )
    ratios = [
        ("native", "orjson_floor"),
        ("native", "httpx_sse"),
        ("native_basic", "httpx_sse"),
        ("pure", "httpx_sse"),
        ("pure_basic", "httpx_sse"),
    ]
    return _rate_table(by_group, header, IMPLEMENTATIONS, ratios)


def _mb(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or not b else f"{a / b:.2f}x"


def parse_table(benchmarks: list[dict[str, Any]]) -> str:
    """Markdown table of ``parse_jsonrpc_line`` against ``json.loads`` per payload and input
    form (target: both backends at least 1.0x ``json.loads`` on the same input)."""
    by_group: dict[str, dict[str, float]] = {}
    for bench in benchmarks:
        name = bench["name"].split("[")[0].removeprefix("test_parse_")
        if bench["group"].startswith("parse-") and name in PARSERS:
            group = bench["group"].removeprefix("parse-").replace("-", ", ")
            by_group.setdefault(group, {})[name] = _mb_per_s(bench)
    header = (
        "| payload, input | native MB/s | pure MB/s | json.loads MB/s | orjson MB/s"
        " | native / json.loads | pure / json.loads | native / orjson |"
    )
    ratios = [("native", "json_loads"), ("pure", "json_loads"), ("native", "orjson")]
    return _rate_table(by_group, header, PARSERS, ratios)


def linearity_table(benchmarks: list[dict[str, Any]]) -> str:
    """Markdown table of the per-MB cost of a 64 MiB event against a 1 MiB event."""
    per_mb: dict[str, dict[int, float]] = {}
    peaks: dict[str, float] = {}
    for bench in benchmarks:
        if bench["group"].startswith("linearity-"):
            backend = bench["group"].removeprefix("linearity-")
            mib = bench["extra_info"]["bytes"] >> 20
            # Best of the rounds: the two sizes run minutes apart on a shared machine, and the
            # minimum is the figure least moved by whatever else ran meanwhile.
            per_mb.setdefault(backend, {})[mib] = bench["stats"]["min"] / mib * 1e3
        elif bench["group"] == "peak-memory":
            backend = "native" if "native" in bench["name"] else "python"
            peaks[backend] = float(bench["extra_info"]["ratio"])
    rows = [
        "| backend | ms per MiB, 1 MiB event (best) | ms per MiB, 64 MiB event (best)"
        " | ratio (target <= 1.5) | peak memory / event size |",
        "|---|---:|---:|---:|---:|",
    ]
    for backend in sorted(per_mb):
        small, large = per_mb[backend][1], per_mb[backend][64]
        peak = f"{peaks[backend]:.2f}x" if backend in peaks else "-"
        rows.append(f"| {backend} | {small:.2f} | {large:.2f} | {large / small:.2f} | {peak} |")
    return "\n".join(rows)


def transport_table(benchmarks: list[dict[str, Any]]) -> str:
    """Markdown table of the transport benchmarks: MB/s or calls/s per client, and the ratios
    of native mcpstream (sync and async) to the SDK client, beside their targets."""
    units = {workload: unit for workload, _, unit, _ in TRANSPORT_WORKLOADS}
    rates: dict[tuple[str, str], float] = {}
    for bench in benchmarks:
        if not bench["group"].startswith("transport-"):
            continue
        info = bench["extra_info"]
        workload = info["workload"]
        if units.get(workload) == "MB/s":
            per_round = float(info["bytes"]) / 1e6
        else:
            per_round = float(info["calls"])
        rates[workload, info["implementation"]] = per_round / bench["stats"]["median"]
    columns = (*TRANSPORT_CLIENTS, *TRANSPORT_FLOORS)
    header = " | ".join(label for _, label in columns)
    ratio_clients = (
        "sync_native",
        "async_native",
        "sync_httpx2_native",
        "async_httpx2_native",
        "httpx",
        "httpx2",
        "socket",
    )
    rows = [
        f"| workload | unit | {header} | sync native / SDK | async native / SDK"
        " | sync httpx2 / SDK | async httpx2 / SDK | bare httpx / SDK | bare httpx2 / SDK"
        " | bare socket / SDK | target |",
        "|---|---|" + "---:|" * (len(columns) + len(ratio_clients)) + "---|",
    ]
    for workload, label, unit, target in TRANSPORT_WORKLOADS:
        if not any(key[0] == workload for key in rates):
            continue
        cells = [rates.get((workload, client)) for client, _ in columns]
        sdk = rates.get((workload, "sdk"))
        ratios = [
            f"{rates[workload, client] / sdk:.1f}x" if sdk and (workload, client) in rates else "-"
            for client in ratio_clients
        ]
        values = " | ".join("-" if cell is None else _rate(cell) for cell in cells)
        rows.append(f"| {label} | {unit} | {values} | {' | '.join(ratios)} | >= {target:g}x |")
    return "\n".join(rows)


SESSION_CLIENTS = (
    *TRANSPORT_CLIENTS,
    ("reference", "reference"),
    ("httpx", "bare httpx"),
    ("httpx2", "bare httpx2"),
    ("httpx_async", "bare httpx async"),
    ("socket", "bare socket"),
)
SESSION_WORKLOADS = (
    ("open", "session open (constructor, handshake, first call)", "ms / session"),
    ("small300", "300 small calls on one session", "us / call"),
    ("concurrent", "100 sessions x 5 small calls", "ms / round"),
)
"""(workload, label, unit) of the session table."""


def _session_times(benchmarks: list[dict[str, Any]]) -> dict[tuple[str, str], float]:
    """Seconds per session (``open``), per call (``small300``) or per round (``concurrent``)."""
    times: dict[tuple[str, str], float] = {}
    for bench in benchmarks:
        info = bench.get("extra_info", {})
        workload = info.get("workload")
        if workload not in ("open", "small300", "concurrent"):
            continue
        per = 1 if workload == "concurrent" else float(info["calls"])
        times[workload, info["implementation"]] = bench["stats"]["median"] / per
    return times


def _time_ratio(
    times: dict[tuple[str, str], float], key: tuple[str, str], base: tuple[str, str]
) -> str:
    if key not in times or base not in times:
        return "-"
    return f"{times[key] / times[base]:.2f}x"


def session_table(benchmarks: list[dict[str, Any]]) -> str:
    """Markdown table of session opening and small calls: the time per unit of each client,
    and the ratios of native mcpstream to its targets (time ratios: lower is faster, except the
    speed-up of ``concurrent``, async all at once against sync one session at a time)."""
    times = _session_times(benchmarks)
    header = " | ".join(label for _, label in SESSION_CLIENTS)
    rows = [
        f"| workload | unit | {header} | ratios (sync native, async native) | target |",
        "|---|---|" + "---:|" * (len(SESSION_CLIENTS) + 1) + "---|",
    ]
    for workload, label, unit in SESSION_WORKLOADS:
        if not any(key[0] == workload for key in times):
            continue
        scale = 1e6 if unit.startswith("us") else 1e3
        cells = [times.get((workload, client)) for client, _ in SESSION_CLIENTS]
        values = " | ".join("-" if cell is None else _rate(cell * scale) for cell in cells)
        sync, aio = (workload, "sync_native"), (workload, "async_native")
        if workload == "concurrent":
            floor = _time_ratio(times, (workload, "httpx"), (workload, "httpx_async"))
            ratios = f"{_time_ratio(times, sync, aio)} faster async (bare httpx: {floor})"
            target = ">= 5x faster async"
        elif workload == "open":
            ref = (workload, "reference")
            ratios = f"{_time_ratio(times, sync, ref)}, {_time_ratio(times, aio, ref)} of reference"
            target = "<= 0.25x reference"
        else:
            ref, sdk = (workload, "reference"), (workload, "sdk")
            sync2, aio2 = (workload, "sync_httpx2_native"), (workload, "async_httpx2_native")
            ratios = (
                f"{_time_ratio(times, sync, ref)}, {_time_ratio(times, aio, ref)} of reference; "
                f"{_time_ratio(times, sync, sdk)}, {_time_ratio(times, aio, sdk)} of SDK; "
                f"host httpx2: {_time_ratio(times, sync2, ref)}, "
                f"{_time_ratio(times, aio2, ref)} of reference"
            )
            target = "<= 0.6x reference, <= 0.3x SDK"
        rows.append(f"| {label} | {unit} | {values} | {ratios} | {target} |")
    return "\n".join(rows)


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def median_of_runs(runs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The benchmarks of the first run, each with the median over ``runs`` of its median time
    (benchmarks missing from a run are left out of that run's figures)."""
    medians: dict[str, list[float]] = {}
    for run in runs:
        for bench in run:
            medians.setdefault(bench["fullname"], []).append(bench["stats"]["median"])
    combined = []
    for bench in runs[0]:
        stats = dict(bench["stats"], median=statistics.median(medians[bench["fullname"]]))
        combined.append(dict(bench, stats=stats))
    return combined


def write_markdown(path: Path, tables: dict[str, str], kind: str = "report") -> None:
    """Write each of ``tables`` (by block name) into its block of the markdown page at ``path``:
    the lines between ``<!-- KIND:NAME -->`` and ``<!-- /KIND:NAME -->`` are replaced (``kind``:
    ``report`` on the benchmarks page, ``figures`` where another page quotes them). A table
    without its block in the page is an error (nothing is written then)."""
    text = path.read_text(encoding="utf-8")
    for name, table in tables.items():
        block = re.compile(
            rf"^(<!-- {kind}:{re.escape(name)} -->\n).*?^(<!-- /{kind}:{re.escape(name)} -->)$",
            re.DOTALL | re.MULTILINE,
        )
        # A blank line on each side: Markdown ends an HTML comment's block only at one.
        text, found = block.subn(
            lambda match, table=table: f"{match[1]}\n{table}\n\n{match[2]}", text
        )
        if found != 1:
            raise SystemExit(f"{path}: expected one <!-- {kind}:{name} --> block, found {found}")
    path.write_text(text, encoding="utf-8")


HTTPX2_COLUMNS = (
    ("sync_native", "sync, own httpx"),
    ("async_native", "async, own httpx"),
    ("sync_httpx2_native", "sync, host httpx2"),
    ("async_httpx2_native", "async, host httpx2"),
    ("sync_own_httpx2_native", "sync, own httpx2"),
    ("async_own_httpx2_native", "async, own httpx2"),
    ("sdk", "`mcp` SDK"),
    ("httpx2", "bare httpx2"),
)
"""The columns of the httpx2 table: the transports over each HTTP stack, the SDK client, and
bare httpx2 (the body read whole; the large result and small calls only)."""


def httpx2_table(benchmarks: list[dict[str, Any]]) -> str:
    """Markdown table of the transports over httpx and over httpx2 (the host's client and
    their own), beside the SDK client and bare httpx2: MB/s, calls/s and us per call."""
    units = {workload: unit for workload, _, unit, _ in TRANSPORT_WORKLOADS}
    rates: dict[tuple[str, str], float] = {}
    for bench in benchmarks:
        info = bench.get("extra_info", {})
        workload = info.get("workload")
        if bench["group"].startswith("transport-") and workload in units:
            per = float(info["bytes"]) / 1e6 if units[workload] == "MB/s" else float(info["calls"])
            rates[workload, info["implementation"]] = per / bench["stats"]["median"]
    for (workload, client), seconds in _session_times(benchmarks).items():
        if workload == "small300":
            rates[workload, client] = seconds * 1e6
    header = " | ".join(label for _, label in HTTPX2_COLUMNS)
    rows = [f"| workload | unit | {header} |", "|---|---|" + "---:|" * len(HTTPX2_COLUMNS)]
    workloads = [(w, label, unit) for w, label, unit, _ in TRANSPORT_WORKLOADS if w != "small_json"]
    for workload, label, unit in (
        *workloads,
        ("small300", "300 small calls on one session", "us / call"),
    ):
        if not any(key[0] == workload for key in rates):
            continue
        cells = [rates.get((workload, client)) for client, _ in HTTPX2_COLUMNS]
        values = " | ".join("-" if cell is None else _rate(cell) for cell in cells)
        rows.append(f"| {label} | {unit} | {values} |")
    return "\n".join(rows)


FIGURE_PAGES = {
    "README.md": ("headline",),
    "docs/httpx2.md": ("httpx2",),
    "docs/sdk.md": ("sdk",),
}
"""The pages that quote figures of the benchmarks page, and their ``figures`` blocks."""
BENCHMARKS_PAGE = "docs/benchmarks.md"


def read_tables(page: str) -> dict[str, list[dict[str, str]]]:
    """The tables of a page's ``report`` blocks, by block name: one dict (header to cell) per
    row."""
    tables: dict[str, list[dict[str, str]]] = {}
    block = re.compile(r"^<!-- report:(\w+) -->\n(.*?)^<!-- /report:\1 -->$", re.M | re.S)
    for match in block.finditer(page):
        lines = [line for line in match[2].splitlines() if line.startswith("|")]
        if len(lines) < 2:
            continue
        cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
        tables[match[1]] = [dict(zip(cells[0], row, strict=True)) for row in cells[2:]]
    return tables


def _number(cell: str) -> float:
    return float(cell.replace(",", "").rstrip("x"))


def _row(table: list[dict[str, str]], label: str) -> dict[str, str]:
    for row in table:
        if next(iter(row.values())).startswith(label):
            return row
    raise SystemExit(f"{BENCHMARKS_PAGE}: no row {label!r} to quote")


def _span(values: list[float], unit: str = "") -> str:
    """``low-high``: whole numbers from 10 up, one decimal below."""

    def figure(value: float) -> str:
        return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"

    low, high = min(values), max(values)
    return f"{figure(low)}-{figure(high)}{unit}" if low != high else f"{figure(low)}{unit}"


def headline_table(tables: dict[str, list[dict[str, str]]]) -> str:
    """The README's headline figures, each quoted from a table of the benchmarks page."""
    transport, sessions = tables["transport"], tables["sessions"]
    rows = [
        "| workload | mcpstream (native codec) | compared with | ratio |",
        "|---|---:|---|---:|",
    ]
    for label in ("16 MiB tool result", "20,000 notifications + result"):
        row = _row(transport, label)
        rows.append(
            f"| {label}, sync / async | {row['sync, native']} / {row['async, native']} MB/s"
            f" | `mcp` SDK client, {row['`mcp` SDK client']} MB/s"
            f" | {row['sync native / SDK']} / {row['async native / SDK']} |"
        )
    opening = _row(sessions, "session open")
    ratio = _number(opening["sync, native"]) / _number(opening["reference"])
    rows.append(
        f"| session open (constructor, handshake, first call) | {opening['sync, native']} ms"
        f" | reference transport, {opening['reference']} ms | {ratio:.2f}x the time |"
    )
    small = _row(sessions, "300 small calls")
    sync, aio = _number(small["sync, native"]), _number(small["async, native"])
    for name, column in (
        ("reference transport", "reference"),
        ("`mcp` SDK client", "`mcp` SDK client"),
    ):
        base = _number(small[column])
        rows.append(
            f"| small call on one session, sync / async"
            f" | {small['sync, native']} / {small['async, native']} us"
            f" | {name}, {small[column]} us | {sync / base:.2f}x / {aio / base:.2f}x the time |"
        )
    codec = tables["codec"]
    for backend, column, ratio_column in (
        ("", "native MB/s", "native / httpx-sse"),
        (", pure-Python codec", "pure MB/s", "pure / httpx-sse"),
    ):
        speeds = [_number(row[column]) for row in codec]
        ratios = [_number(row[ratio_column]) for row in codec]
        rows.append(
            f"| SSE + JSON-RPC decoding ({len(codec)} workloads){backend} | {_span(speeds)} MB/s"
            f" | httpx-sse + `json.loads` | {_span(ratios, 'x')} |"
        )
    sdk = tables.get("sdk")
    if sdk:
        large = _row(sdk, "one 16 MiB result")
        theirs = large["SDK's transport"]
        rows.append(
            f"| under `mcp.Client`: one 16 MiB result, CPU | {large['mcpstream.sdk']}"
            f" | the SDK's own transport, {theirs}"
            f" | {large['ratio (range)'].split(' ')[0]} less |"
        )
    return "\n".join(rows)


def quoted_figures(page: str) -> dict[str, str]:
    """What each ``figures`` block shows, from the benchmarks page's text."""
    tables = read_tables(page)
    quotes = {"headline": headline_table(tables)}
    for name in ("httpx2", "sdk"):
        block = re.search(
            rf"^<!-- report:{name} -->\n\n(.*?)\n\n<!-- /report:{name} -->$", page, re.M | re.S
        )
        if block is None:
            raise SystemExit(f"{BENCHMARKS_PAGE}: no report:{name} block to quote")
        quotes[name] = block[1]
    return quotes


def write_quotes(root: Path) -> None:
    """Rewrite the ``figures`` blocks of ``FIGURE_PAGES`` from the benchmarks page."""
    quotes = quoted_figures((root / BENCHMARKS_PAGE).read_text(encoding="utf-8"))
    for page, names in FIGURE_PAGES.items():
        write_markdown(root / page, {name: quotes[name] for name in names}, kind="figures")


def main() -> None:
    """Run (or load) the benchmarks and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--json",
        type=Path,
        nargs="+",
        help="saved pytest-benchmark JSON files to report on (the median over them)",
    )
    parser.add_argument("--suite", choices=sorted(SUITES), default="all")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run the suite this many times; report the median"
    )
    parser.add_argument("--save", type=Path, help="a directory to keep each run's JSON in")
    parser.add_argument(
        "--markdown",
        type=Path,
        help="a page (docs/benchmarks.md) whose report blocks get the tables",
    )
    parser.add_argument(
        "--quote",
        action="store_true",
        help="only rewrite the figures the other pages quote from docs/benchmarks.md",
    )
    args = parser.parse_args()
    if args.quote:
        write_quotes(BENCHES.parent)
        return
    runs: list[list[dict[str, Any]]] = []
    if args.json is None:
        with tempfile.TemporaryDirectory() as tmp:
            directory = args.save or Path(tmp)
            directory.mkdir(parents=True, exist_ok=True)
            for index in range(args.repeat):
                path = directory / f"bench-{args.suite}-{index + 1}.json"
                run_benchmarks(path, args.suite)
                runs.append(json.loads(path.read_text())["benchmarks"])
    else:
        runs = [json.loads(path.read_text())["benchmarks"] for path in args.json]
    benchmarks = median_of_runs(runs)
    tables: dict[str, str] = {}
    if args.suite in ("all", "codec"):
        tables["codec"] = throughput_table(benchmarks)
        tables["parse"] = parse_table(benchmarks)
        tables["linearity"] = linearity_table(benchmarks)
    if args.suite in ("all", "transport"):
        tables["transport"] = transport_table(benchmarks)
        tables["sessions"] = session_table(benchmarks)
        tables["httpx2"] = httpx2_table(benchmarks)
    print("\n\n".join(tables.values()))
    if args.markdown is not None:
        write_markdown(args.markdown, tables)
        write_quotes(BENCHES.parent)


if __name__ == "__main__":
    main()
