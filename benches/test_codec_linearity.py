"""Linear cost: one 64 MiB event fed in 1 KiB chunks against a 1 MiB event, per MB, per backend.

Target: the 64 MiB event costs no more per MB than 1.5 x the 1 MiB event on both backends, and the
native backend's peak memory for it stays within 3 x the event size. ``benches/report.py`` turns
these timings into the per-MB ratio.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import codec_messages
from pytest_benchmark.fixture import BenchmarkFixture
from workloads import iter_chunks

SIZES_MIB = (1, 64)
BENCHES = Path(__file__).resolve().parent


@pytest.mark.parametrize("mib", SIZES_MIB)
@pytest.mark.parametrize("backend_name", ["native", "python"])
def test_single_event(
    benchmark: BenchmarkFixture,
    backend_name: str,
    mib: int,
    backends: dict[str, ModuleType],
) -> None:
    backend = backends[backend_name]
    benchmark.group = f"linearity-{backend_name}"
    benchmark.extra_info["bytes"] = mib << 20
    # No cap: the 64 MiB event is over the default 16 MiB limit by design.
    run = codec_messages(backend, max_event_bytes=None)
    rounds = 7 if mib > 1 else 60
    count = benchmark.pedantic(
        lambda: run(iter_chunks(mib << 20)), rounds=rounds, iterations=1, warmup_rounds=1
    )
    assert count == 1


@pytest.mark.parametrize("backend_name", ["native", "python"])
def test_peak_memory_of_a_64_mib_event(benchmark: BenchmarkFixture, backend_name: str) -> None:
    benchmark.group = "peak-memory"
    output = benchmark.pedantic(
        lambda: (
            subprocess.run(
                [sys.executable, str(BENCHES / "peak_memory.py"), backend_name, "64"],
                check=True,
                capture_output=True,
                text=True,
                cwd=BENCHES,
            ).stdout
        ),
        rounds=1,
        iterations=1,
    )
    measured = json.loads(output)
    benchmark.extra_info.update(measured)
    if backend_name == "native":
        assert measured["ratio"] <= 3.0, measured
