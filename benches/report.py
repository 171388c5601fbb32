"""Run the codec benchmarks and print the README's tables: ``python benches/report.py``.

All figures come from one pytest-benchmark run, so every ratio compares implementations measured
side by side on the same machine at the same time. Throughput is bytes / median time.
Pass ``--json FILE`` to reuse a saved run instead of running again.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCHES = Path(__file__).resolve().parent
IMPLEMENTATIONS = ("native", "pure", "httpx_sse", "orjson_floor")


def run_benchmarks(json_path: Path) -> None:
    """Run every benchmark in benches/ and save pytest-benchmark's JSON to ``json_path``."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(BENCHES),
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


def throughput_table(benchmarks: list[dict[str, Any]]) -> str:
    """Markdown table of MB/s per workload and implementation, with the target ratios."""
    by_group: dict[str, dict[str, float]] = {}
    for bench in benchmarks:
        name = bench["name"].split("[")[0].removeprefix("test_")
        if name in IMPLEMENTATIONS and not bench["group"].startswith(("linearity", "peak")):
            by_group.setdefault(bench["group"], {})[name] = _mb_per_s(bench)
    rows = [
        "| workload | native MB/s | pure MB/s | httpx-sse + json.loads MB/s | orjson floor MB/s"
        " | native / floor | pure / httpx-sse | native / httpx-sse |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for group in sorted(by_group):
        r = by_group[group]
        rows.append(
            f"| {group} | {r['native']:.0f} | {r['pure']:.0f} | {r['httpx_sse']:.0f}"
            f" | {r['orjson_floor']:.0f} | {r['native'] / r['orjson_floor']:.2f}x"
            f" | {r['pure'] / r['httpx_sse']:.2f}x | {r['native'] / r['httpx_sse']:.1f}x |"
        )
    return "\n".join(rows)


def linearity_table(benchmarks: list[dict[str, Any]]) -> str:
    """Markdown table of the per-MB cost of a 64 MiB event against a 1 MiB event."""
    per_mb: dict[str, dict[int, float]] = {}
    peaks: dict[str, float] = {}
    for bench in benchmarks:
        if bench["group"].startswith("linearity-"):
            backend = bench["group"].removeprefix("linearity-")
            mib = bench["extra_info"]["bytes"] >> 20
            per_mb.setdefault(backend, {})[mib] = bench["stats"]["median"] / mib * 1e3
        elif bench["group"] == "peak-memory":
            backend = "native" if "native" in bench["name"] else "python"
            peaks[backend] = float(bench["extra_info"]["ratio"])
    rows = [
        "| backend | ms per MiB, 1 MiB event | ms per MiB, 64 MiB event | ratio (target <= 1.5)"
        " | peak memory / event size |",
        "|---|---:|---:|---:|---:|",
    ]
    for backend in sorted(per_mb):
        small, large = per_mb[backend][1], per_mb[backend][64]
        peak = f"{peaks[backend]:.2f}x" if backend in peaks else "-"
        rows.append(f"| {backend} | {small:.2f} | {large:.2f} | {large / small:.2f} | {peak} |")
    return "\n".join(rows)


def main() -> None:
    """Run (or load) the benchmarks and print both tables."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", type=Path, help="a saved pytest-benchmark JSON to report on")
    args = parser.parse_args()
    if args.json is None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.json"
            run_benchmarks(path)
            data = json.loads(path.read_text())
    else:
        data = json.loads(args.json.read_text())
    print(throughput_table(data["benchmarks"]))
    print()
    print(linearity_table(data["benchmarks"]))


if __name__ == "__main__":
    main()
